package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/catalogspec/catalogspec/reference"
)

// Cached entity types: what authentication and authorization read on every
// request. Migration 003 notifies every change to them.
var cachedTypes = map[string]bool{
	reference.EntityCorpUser:    true,
	reference.EntityAccessToken: true,
	reference.EntityPolicy:      true,
}

// ListenerName is the application_name of the connection a Cache listens
// on, as pg_stat_activity shows it.
const ListenerName = "catalogd changes listener"

const (
	// changesChannel is the channel migration 003's trigger notifies.
	changesChannel = "catalogd_changes"
	// heartbeat is how often an idle listener checks that its connection
	// answers and that it has seen every change.
	heartbeat = 200 * time.Millisecond
	// TrustFor is how long a confirmation (a notification or a heartbeat)
	// keeps the cache trusted: past it, without a newer one, every read
	// goes to the database. While the database is frozen no change can
	// commit, so until then answers from memory are still exact.
	TrustFor = 4 * heartbeat
	// missedAfter is how long a counted change's notification may take to
	// follow the count before it is taken as missed.
	missedAfter = 100 * time.Millisecond
	// maxEntities and maxLists bound the cache; past them it starts over.
	maxEntities = 200_000
	maxLists    = 256
	// What the cache holds is bounded by bytes too (issue 29: one user's
	// 24 listings of 1,000 large tokens once kept 333 MB here): entities
	// up to maxEntityBytes in all, each up to maxEntityEntry; listings up
	// to maxListBytes in all, each up to maxListEntry, and the listings
	// one caller read up to maxListShare of them, so that no caller can
	// fill the cache, nor push out what others read. What is larger than
	// an entry may be is read from the database each time.
	maxEntityBytes = 64 << 20
	maxEntityEntry = 4 << 20
	maxListBytes   = 16 << 20
	maxListEntry   = 1 << 20
	maxListShare   = maxListBytes / 8
)

// Cache is a Store that keeps, in memory, the users, access tokens and
// policies it has read, and learns of every change to them through the
// database itself (LISTEN/NOTIFY, sent by a trigger in the transaction of
// the change), so that a change made through any replica is seen by every
// other one as soon as it commits. It never trades exactness for speed:
//
//   - a change made through this Cache is applied to it before the write
//     returns, so the next request here sees it;
//   - a change made elsewhere is applied when its notification arrives
//     (milliseconds);
//   - whenever the Cache cannot be sure it has seen every change (its
//     listening connection is down, a numbered notification is missing, or
//     no confirmation came for TrustFor), it serves every read from the
//     database until it is sure again, and starts over empty.
//
// Everything else (tags, datasets, secrets) passes through to the DB.
type Cache struct {
	*DB
	url    string
	logger *slog.Logger

	mu sync.Mutex
	// sureUntil: the cache may be trusted until then; zero when not.
	sureUntil time.Time
	// seen is the number of the last change applied.
	seen int64
	// epoch is bumped when the cache starts over, stripes[stripe(urn)]
	// when urn is invalidated, and versions[type] with either: a read that
	// raced with an invalidation of what it read does not put it in the
	// cache. (Striped, so that changes to other entities seldom hold back
	// a read, and bounded.)
	epoch   uint64
	stripes [256]uint64
	// versions counts the invalidations of each entity type.
	versions map[string]uint64
	entities map[string][]reference.Aspect    // by URN; an empty slice: no such entity
	lists    map[string]map[string]cachedList // by entity type, then by filter
	// entityBytes and listBytes are what entities and lists hold, and
	// ownerBytes what the listings each caller read hold.
	entityBytes, listBytes int64
	ownerBytes             map[string]int64
	ready                  chan struct{} // closed when first sure
	stop                   context.CancelFunc
	done                   chan struct{}
	now                    func() time.Time
	// onRead, for tests, runs between a read from the database and the
	// decision to keep it: where an invalidation can race with the read.
	onRead func()
}

func (c *Cache) afterRead() {
	if c.onRead != nil {
		c.onRead()
	}
}

type cachedList struct {
	aspects []reference.Aspect
	total   int
	bytes   int64
	owner   string // the caller who read it
}

// aspectsBytes is what aspects hold, as the cache counts it.
func aspectsBytes(as []reference.Aspect) int64 {
	n := int64(64)
	for _, a := range as {
		n += int64(reference.AspectBytes(a))
	}
	return n
}

// NewCache starts listening for changes on the database at url (the one db
// uses) and returns the cache over db. It serves reads from the database
// until it first has a confirmed view. Close stops it.
func NewCache(db *DB, url string, logger *slog.Logger) *Cache {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Cache{
		DB: db, url: url, logger: logger,
		versions:   map[string]uint64{},
		entities:   map[string][]reference.Aspect{},
		lists:      map[string]map[string]cachedList{},
		ownerBytes: map[string]int64{},
		ready:      make(chan struct{}),
		stop:       cancel,
		done:       make(chan struct{}),
		now:        time.Now,
	}
	go c.listen(ctx)
	return c
}

// Close stops listening. The DB is the caller's to close.
func (c *Cache) Close() {
	c.stop()
	<-c.done
}

// Ready is closed once the cache has had its first confirmed view.
func (c *Cache) Ready() <-chan struct{} { return c.ready }

// Version says how many times the cached entities of entityType have been
// invalidated, and whether the cache is trusted now; a caller may keep
// what it derived from them while the version stays the same and trusted.
func (c *Cache) Version(entityType string) (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.versions[entityType], c.trusted()
}

func (c *Cache) trusted() bool { return c.now().Before(c.sureUntil) }

// Aspects returns every aspect of urn, from memory when it can.
func (c *Cache) Aspects(ctx context.Context, urn reference.URN) ([]reference.Aspect, error) {
	if !cachedTypes[urn.EntityType] {
		return c.DB.Aspects(ctx, urn)
	}
	key := urn.String()
	c.mu.Lock()
	if as, ok := c.entities[key]; ok && c.trusted() {
		c.mu.Unlock()
		return slices.Clone(as), nil
	}
	i := stripe(key)
	epoch, gen := c.epoch, c.stripes[i]
	c.mu.Unlock()
	as, err := c.DB.Aspects(ctx, urn)
	if err != nil {
		return nil, err
	}
	c.afterRead()
	c.mu.Lock()
	if size := aspectsBytes(as); epoch == c.epoch && gen == c.stripes[i] && c.trusted() && size <= maxEntityEntry {
		if len(c.entities) >= maxEntities || c.entityBytes+size > maxEntityBytes {
			clear(c.entities)
			c.entityBytes = 0
		}
		c.dropEntityLocked(key)
		c.entities[key] = slices.Clip(slices.Clone(as))
		c.entityBytes += size
	}
	c.mu.Unlock()
	return as, nil
}

// Aspect returns one aspect, from the entity's cached aspects when it can.
func (c *Cache) Aspect(ctx context.Context, urn reference.URN, name string) (reference.Aspect, error) {
	if !cachedTypes[urn.EntityType] {
		return c.DB.Aspect(ctx, urn, name)
	}
	as, err := c.Aspects(ctx, urn)
	if err != nil {
		return reference.Aspect{}, err
	}
	for _, a := range as {
		if a.Name == name {
			return a, nil
		}
	}
	return reference.Aspect{}, reference.Errorf(reference.ENOTFOUND, "not found")
}

// ListAspects returns a listing, from memory when it can.
func (c *Cache) ListAspects(ctx context.Context, f reference.Filter) ([]reference.Aspect, int, error) {
	if !cachedTypes[f.EntityType] {
		return c.DB.ListAspects(ctx, f)
	}
	key := filterKey(f)
	c.mu.Lock()
	if l, ok := c.lists[f.EntityType][key]; ok && c.trusted() {
		c.mu.Unlock()
		return slices.Clone(l.aspects), l.total, nil
	}
	epoch, version := c.epoch, c.versions[f.EntityType]
	c.mu.Unlock()
	as, total, err := c.DB.ListAspects(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	c.afterRead()
	c.mu.Lock()
	if epoch == c.epoch && version == c.versions[f.EntityType] && c.trusted() {
		owner := ""
		if a, ok := reference.ActorFromContext(ctx); ok {
			owner = a.URN.String()
		}
		c.keepListLocked(f.EntityType, key, cachedList{aspects: slices.Clip(slices.Clone(as)), total: total, bytes: aspectsBytes(as), owner: owner})
	}
	c.mu.Unlock()
	return as, total, nil
}

// keepListLocked keeps a listing within the bounds: not at all when it is
// larger than an entry may be; in place of the older listings of the same
// caller when theirs would hold more than their share; and in a cache
// started over when all would hold more than they may.
func (c *Cache) keepListLocked(entityType, key string, l cachedList) {
	if l.bytes > maxListEntry {
		return
	}
	if old, ok := c.lists[entityType][key]; ok {
		c.dropListLocked(entityType, key, old)
	}
	if c.ownerBytes[l.owner]+l.bytes > maxListShare {
		for t, byFilter := range c.lists {
			for k, old := range byFilter {
				if old.owner == l.owner {
					c.dropListLocked(t, k, old)
				}
			}
		}
	}
	byFilter := c.lists[entityType]
	if c.listBytes+l.bytes > maxListBytes || len(byFilter) >= maxLists {
		c.clearListsLocked()
		byFilter = nil
	}
	if byFilter == nil {
		byFilter = map[string]cachedList{}
		c.lists[entityType] = byFilter
	}
	byFilter[key] = l
	c.listBytes += l.bytes
	c.ownerBytes[l.owner] += l.bytes
}

func (c *Cache) dropListLocked(entityType, key string, l cachedList) {
	delete(c.lists[entityType], key)
	c.listBytes -= l.bytes
	if c.ownerBytes[l.owner] -= l.bytes; c.ownerBytes[l.owner] <= 0 {
		delete(c.ownerBytes, l.owner)
	}
}

// dropListsLocked forgets every listing of entityType.
func (c *Cache) dropListsLocked(entityType string) {
	for k, l := range c.lists[entityType] {
		c.dropListLocked(entityType, k, l)
	}
	delete(c.lists, entityType)
}

func (c *Cache) clearListsLocked() {
	clear(c.lists)
	clear(c.ownerBytes)
	c.listBytes = 0
}

func (c *Cache) dropEntityLocked(urn string) {
	if as, ok := c.entities[urn]; ok {
		c.entityBytes -= aspectsBytes(as)
		delete(c.entities, urn)
	}
}

// CachedBytes says what the cache holds: its entities' bytes, its
// listings', and the most the listings of any one caller hold.
func (c *Cache) CachedBytes() (entities, lists, mostByOneCaller int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.ownerBytes {
		mostByOneCaller = max(mostByOneCaller, n)
	}
	return c.entityBytes, c.listBytes, mostByOneCaller
}

// stripe is urn's index in Cache.stripes (FNV-1a).
func stripe(urn string) int {
	h := uint32(2166136261)
	for i := 0; i < len(urn); i++ {
		h = (h ^ uint32(urn[i])) * 16777619
	}
	return int(h % 256)
}

// filterKey is a canonical text of f.
func filterKey(f reference.Filter) string {
	var b strings.Builder
	b.WriteString(f.Aspect)
	for _, field := range slices.Sorted(maps.Keys(f.Where)) {
		b.WriteString("\x00" + field)
		for _, v := range f.Where[field] {
			b.WriteString("\x01" + v)
		}
	}
	for _, field := range slices.Sorted(maps.Keys(f.Not)) {
		b.WriteString("\x02" + field)
		for _, v := range f.Not[field] {
			b.WriteString("\x01" + v)
		}
	}
	for _, field := range slices.Sorted(maps.Keys(f.Contains)) {
		b.WriteString("\x03" + field + "\x01" + f.Contains[field])
	}
	var criteria []string // in any order, the same listing
	for _, c := range f.Criteria {
		criteria = append(criteria, fmt.Sprintf("%q %q %q %v %v", c.Field, c.Condition, c.Values, c.Negated, c.Numeric))
	}
	slices.Sort(criteria)
	for _, c := range criteria {
		b.WriteString("\x04" + c)
	}
	b.WriteString("\x00" + strconv.Itoa(f.Start) + "\x00" + strconv.Itoa(f.Count))
	return b.String()
}

// The writes go to the database, then invalidate what they changed here
// before returning: the next request on this replica sees them.

func (c *Cache) CreateEntity(ctx context.Context, aspects []reference.Aspect) error {
	err := c.DB.CreateEntity(ctx, aspects)
	for _, a := range aspects {
		c.invalidate(a.URN)
	}
	return err
}

func (c *Cache) UpsertAspect(ctx context.Context, a reference.Aspect) error {
	err := c.DB.UpsertAspect(ctx, a)
	c.invalidate(a.URN)
	return err
}

func (c *Cache) WriteAspects(ctx context.Context, upserts, keys []reference.Aspect, series []reference.TimeseriesValue) error {
	err := c.DB.WriteAspects(ctx, upserts, keys, series)
	for _, as := range [][]reference.Aspect{upserts, keys} {
		for _, a := range as {
			c.invalidate(a.URN)
		}
	}
	return err
}

func (c *Cache) ReplaceAspect(ctx context.Context, a reference.Aspect) error {
	err := c.DB.ReplaceAspect(ctx, a)
	c.invalidate(a.URN)
	return err
}

func (c *Cache) UpdateAspects(ctx context.Context, keys []reference.AspectKey, change func([]reference.Aspect) (reference.Change, error)) error {
	var written []reference.URN
	err := c.DB.UpdateAspects(ctx, keys, func(current []reference.Aspect) (reference.Change, error) {
		ch, err := change(current)
		written = written[:0]
		for _, as := range [][]reference.Aspect{ch.Upserts, ch.Keys} {
			for _, a := range as {
				written = append(written, a.URN)
			}
		}
		for _, d := range ch.Deletes {
			written = append(written, d.URN)
		}
		return ch, err
	})
	for _, k := range keys {
		c.invalidate(k.URN)
	}
	for _, u := range written {
		c.invalidate(u)
	}
	return err
}

func (c *Cache) DeleteEntity(ctx context.Context, urn reference.URN) (bool, error) {
	found, err := c.DB.DeleteEntity(ctx, urn)
	c.invalidate(urn)
	return found, err
}

func (c *Cache) CreateUserEntity(ctx context.Context, user reference.URN, aspects []reference.Aspect) error {
	err := c.DB.CreateUserEntity(ctx, user, aspects)
	for _, a := range aspects {
		c.invalidate(a.URN)
	}
	return err
}

func (c *Cache) ReplaceAspectIf(ctx context.Context, a reference.Aspect, field, want string) (bool, error) {
	ok, err := c.DB.ReplaceAspectIf(ctx, a, field, want)
	c.invalidate(a.URN)
	return ok, err
}

// RemoveUser changes users, tokens and policies it cannot name one by one:
// the cache starts over (removals are rare), before the write returns.
func (c *Cache) RemoveUser(ctx context.Context, user reference.URN) (bool, error) {
	found, err := c.DB.RemoveUser(ctx, user)
	c.mu.Lock()
	c.forgetLocked()
	c.mu.Unlock()
	return found, err
}

// invalidate forgets what is cached of urn and of listings of its type. A
// failed write invalidates too: it may have committed before the error.
func (c *Cache) invalidate(urn reference.URN) {
	if !cachedTypes[urn.EntityType] {
		return
	}
	c.mu.Lock()
	c.invalidateLocked(urn.EntityType, urn.String())
	c.mu.Unlock()
}

func (c *Cache) invalidateLocked(entityType, urn string) {
	c.dropEntityLocked(urn)
	c.dropListsLocked(entityType)
	c.versions[entityType]++
	c.stripes[stripe(urn)]++
}

// distrust forgets everything and stops trusting the cache until resync.
func (c *Cache) distrust() {
	c.mu.Lock()
	c.sureUntil = time.Time{}
	c.forgetLocked()
	c.mu.Unlock()
}

func (c *Cache) forgetLocked() {
	clear(c.entities)
	c.entityBytes = 0
	c.clearListsLocked()
	for t := range cachedTypes {
		c.versions[t]++
	}
	c.epoch++
}

// confirm extends the trust after a notification or a heartbeat.
func (c *Cache) confirmLocked() { c.sureUntil = c.now().Add(TrustFor) }

// listen keeps a connection listening for changes, reconnecting when it
// drops; while it is down the cache is not trusted.
func (c *Cache) listen(ctx context.Context) {
	defer close(c.done)
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		err := c.listenOnce(ctx)
		c.distrust()
		if ctx.Err() != nil {
			return
		}
		c.logger.Warn("change notifications interrupted: reading users, tokens and policies from the database until they resume", "error", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// listenOnce connects, starts listening, takes the current change number as
// its starting point and applies notifications until the connection fails.
func (c *Cache) listenOnce(ctx context.Context) error {
	c.mu.Lock()
	url := c.url // a test may move it (export_test.go)
	c.mu.Unlock()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return err
	}
	cfg.RuntimeParams["application_name"] = ListenerName
	cctx, cancel := context.WithTimeout(ctx, c.timeout)
	conn, err := pgx.ConnectConfig(cctx, cfg)
	cancel()
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := c.exec(ctx, conn, "LISTEN "+changesChannel); err != nil {
		return err
	}
	seq, err := c.current(ctx, conn)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.forgetLocked()
	c.seen = seq
	c.confirmLocked()
	c.mu.Unlock()
	select {
	case <-c.ready:
	default:
		close(c.ready)
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, heartbeat)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			c.apply(n.Payload)
		case ctx.Err() != nil:
			return ctx.Err()
		case wctx.Err() != nil: // the heartbeat's wait is over
			if err := c.check(ctx, conn); err != nil {
				return err
			}
		default:
			return err
		}
	}
}

// check asks for the current change number and starts over if a change it
// counts was not notified. A notification can reach the listener a moment
// after the answer that counts its change (PostgreSQL sends it when the
// session is next idle), so it waits up to missedAfter for those first.
func (c *Cache) check(ctx context.Context, conn *pgx.Conn) error {
	seq, err := c.current(ctx, conn)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(missedAfter)
	for c.behind(seq) {
		wctx, cancel := context.WithDeadline(ctx, deadline)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if wctx.Err() != nil {
				break // not come: missed
			}
			return err
		}
		c.apply(n.Payload)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if seq > c.seen {
		c.logger.Warn("a change was not notified: starting the cache over", "seen", c.seen, "current", seq)
		c.forgetLocked()
		c.seen = seq
	}
	c.confirmLocked()
	return nil
}

// behind says whether changes up to seq have not all been applied.
func (c *Cache) behind(seq int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return seq > c.seen
}

// apply takes one notification, "<number> <urn>".
func (c *Cache) apply(payload string) {
	num, urn, _ := strings.Cut(payload, " ")
	seq, err := strconv.ParseInt(num, 10, 64)
	c.mu.Lock()
	defer c.mu.Unlock()
	entityType := ""
	if u, perr := reference.ParseURN(urn); perr == nil {
		entityType = u.EntityType
	}
	switch {
	case err != nil || entityType == "":
		c.logger.Warn("unreadable change notification: starting the cache over", "payload", reference.Excerpt(payload))
		c.forgetLocked()
		return // trust is renewed by the next heartbeat, which re-reads the number
	case seq == c.seen+1:
		c.invalidateLocked(entityType, urn)
	case seq <= c.seen:
		c.invalidateLocked(entityType, urn) // already counted; harmless
		return
	default:
		c.logger.Warn("change notifications were missed: starting the cache over", "seen", c.seen, "got", seq)
		c.forgetLocked()
	}
	c.seen = seq
	c.confirmLocked()
}

func (c *Cache) current(ctx context.Context, conn *pgx.Conn) (int64, error) {
	qctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var seq int64
	err := conn.QueryRow(qctx, `SELECT seq FROM changes WHERE id = 1`).Scan(&seq)
	return seq, err
}

func (c *Cache) exec(ctx context.Context, conn *pgx.Conn, sql string) error {
	qctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	_, err := conn.Exec(qctx, sql)
	return err
}
