package reference

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// TestMemoryPool: a request's first FreeBytes are its own; past them it
// takes from the pool, and is refused with ErrBusy (503) when the pool has
// not got what it needs, taking nothing; what it took goes back when it
// ends.
func TestMemoryPool(t *testing.T) {
	pool := NewMemoryPool(10 << 20)
	a := pool.Open(0)
	if err := a.Hold(FreeBytes); err != nil || pool.Used() != 0 {
		t.Fatalf("a request holding its free bytes: %v, the pool lends %d", err, pool.Used())
	}
	if err := a.Hold(1); err != nil || pool.Used() != reserveChunk {
		t.Fatalf("one byte more: %v, the pool lends %d; want one chunk", err, pool.Used())
	}
	if err := a.Hold(8 << 20); err != nil || pool.Used() != 9<<20 {
		t.Fatalf("8 MiB more: %v, the pool lends %d", err, pool.Used())
	}
	b := pool.Open(0)
	if err := b.Hold(FreeBytes + 2<<20); !errors.Is(err, ErrBusy) || pool.Used() != 9<<20 {
		t.Fatalf("a second request wanting 2 MiB of the 1 left: %v, the pool lends %d; want ErrBusy and nothing taken", err, pool.Used())
	}
	if HTTPStatus(ErrorCodeOf(ErrBusy)) != 503 || RetryAfterOf(ErrBusy) == "" {
		t.Errorf("ErrBusy is HTTP %d with Retry-After %q; want 503 and a Retry-After", HTTPStatus(ErrorCodeOf(ErrBusy)), RetryAfterOf(ErrBusy))
	}
	if err := b.Hold(FreeBytes + 1<<20); err != nil {
		t.Fatalf("the last MiB: %v", err)
	}
	a.Close()
	a.Close()
	if pool.Used() != 1<<20 {
		t.Fatalf("after the first request ended the pool lends %d, want 1 MiB", pool.Used())
	}
	b.Close()
	if pool.Used() != 0 {
		t.Fatalf("after both ended the pool lends %d", pool.Used())
	}
	var none *Memory
	if none.Hold(1<<40) != nil || none.Read(1<<40) != nil || none.ReadRefusal() != nil {
		t.Error("no account counts nothing")
	}
}

// TestPrepay: bytes held before a read are what the read's bytes count
// against first; a request the pool cannot serve is refused before it
// reads.
func TestPrepay(t *testing.T) {
	pool := NewMemoryPool(8 << 20)
	m := pool.Open(0)
	ctx := NewContextWithMemory(context.Background(), m)
	if err := Prepay(ctx, 4<<20); err != nil || pool.Used() != 3<<20 {
		t.Fatalf("prepaying 4 MiB: %v, the pool lends %d; want 3 MiB (the first is free)", err, pool.Used())
	}
	if err := ChargeRead(Metered(ctx), 4<<20); err != nil || pool.Used() != 3<<20 {
		t.Fatalf("reading what was prepaid: %v, the pool lends %d; want it unchanged", err, pool.Used())
	}
	if err := ChargeRead(Metered(ctx), 1<<20); err != nil || pool.Used() != 4<<20 {
		t.Fatalf("reading a MiB more: %v, the pool lends %d", err, pool.Used())
	}
	other := pool.Open(0)
	if err := other.Prepay(8 << 20); !errors.Is(err, ErrBusy) || other.prepaid.Load() != 0 {
		t.Fatalf("prepaying more than is left: %v; want ErrBusy and nothing prepaid", err)
	}
	m.Close()
	if pool.Used() != 0 {
		t.Errorf("the pool lends %d after the request ended", pool.Used())
	}
}

// TestMemoryPoolHolders: at most maxHolders requests hold memory from the
// pool at once (two per core, at least four): the next is refused, and
// let in once one of them ends; requests within their free bytes are not
// counted.
func TestMemoryPoolHolders(t *testing.T) {
	pool := NewMemoryPool(1 << 30)
	var holding []*Memory
	for i := int64(0); i < pool.maxHolders; i++ {
		m := pool.Open(0)
		if err := m.Hold(FreeBytes + 1); err != nil {
			t.Fatalf("holder %d: %v", i+1, err)
		}
		holding = append(holding, m)
	}
	small := pool.Open(0)
	if err := small.Hold(FreeBytes); err != nil {
		t.Errorf("a request within its free bytes: %v", err)
	}
	next := pool.Open(0)
	if err := next.Hold(FreeBytes + 1); !errors.Is(err, ErrBusy) {
		t.Fatalf("holder %d: %v; want ErrBusy", pool.maxHolders+1, err)
	}
	holding[0].Close()
	if err := next.Hold(FreeBytes + 1); err != nil {
		t.Fatalf("once one ended: %v", err)
	}
}

// TestMemoryPoolConcurrent: requests holding and letting go at once never
// take the pool past its capacity, and give back all they took.
func TestMemoryPoolConcurrent(t *testing.T) {
	pool := NewMemoryPool(64 << 20)
	var wg sync.WaitGroup
	var mu sync.Mutex
	peak := int64(0)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := pool.Open(0)
			defer m.Close()
			for j := 0; j < 40; j++ {
				if m.Hold(512<<10) != nil {
					return
				}
				mu.Lock()
				peak = max(peak, pool.Used())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if peak > pool.Capacity() || pool.Used() != 0 {
		t.Errorf("the pool lent %d at its peak (capacity %d) and %d at the end", peak, pool.Capacity(), pool.Used())
	}
}

// TestReadBudget: reads through a Metered context count against the
// request's read budget, and stop past it with a refusal naming the
// limit; reads through any other context count nothing.
func TestReadBudget(t *testing.T) {
	pool := NewMemoryPool(0)
	m := pool.Open(1000)
	defer m.Close()
	ctx := NewContextWithMemory(context.Background(), m)
	if err := ChargeRead(ctx, 5000); err != nil || m.BytesRead() != 0 {
		t.Fatalf("a read the caller did not ask for: %v, %d counted", err, m.BytesRead())
	}
	metered := Metered(ctx)
	if err := ChargeRead(metered, 1000); err != nil {
		t.Fatalf("a read of the whole budget: %v", err)
	}
	err := ChargeRead(metered, 1)
	if ErrorCodeOf(err) != EBADREQUEST || !strings.Contains(ErrorMessageOf(err), "limit: readBytes") || !strings.Contains(ErrorMessageOf(err), "1000") {
		t.Fatalf("one byte past the budget: %v; want a BAD_REQUEST naming readBytes and 1000", err)
	}
	if m.ReadRefusal() == nil {
		t.Error("the account does not remember the refusal")
	}
	if Metered(context.Background()) != context.Background() || ChargeRead(context.Background(), 1<<40) != nil {
		t.Error("a context without an account counts nothing")
	}
}
