package postgres

import (
	"context"
	"strconv"
	"time"

	"github.com/catalogspec/catalogspec/reference"
)

// Exec runs SQL on db, for tests that damage the database on purpose.
func Exec(ctx context.Context, db *DB, sql string, args ...any) error {
	_, err := db.pool.Exec(ctx, sql, args...)
	return err
}

// OnRead sets c's hook between a read from the database and keeping it.
func OnRead(c *Cache, f func()) { c.onRead = f }

// Invalidate makes c forget urn, as a notification of a change to it does.
func Invalidate(c *Cache, urn reference.URN) { c.invalidate(urn) }

// SetNow sets c's clock.
func SetNow(c *Cache, now func() time.Time) {
	c.mu.Lock()
	c.now = now
	c.mu.Unlock()
}

// SetURL sets where c connects when it next starts listening.
func SetURL(c *Cache, url string) {
	c.mu.Lock()
	c.url = url
	c.mu.Unlock()
}

// MigrateLock is the advisory lock Migrate takes, as SQL.
var MigrateLock = strconv.FormatInt(migrateLock, 10)

// LockFree says whether c's lock is free: taken and given back at once at
// some moment within tries attempts a millisecond apart (a healthy lock is
// held for microseconds at a time). A lock a path left held never is; it
// is then released here, so that the test can end (Close waits for the
// listener, which would wait for the lock).
func LockFree(c *Cache, tries int) bool {
	for range tries {
		if c.mu.TryLock() {
			c.mu.Unlock()
			return true
		}
		time.Sleep(time.Millisecond)
	}
	c.mu.Unlock()
	return false
}

// Acquired is how many of db's connections are taken now.
func Acquired(db *DB) int32 { return db.pool.Stat().AcquiredConns() }
