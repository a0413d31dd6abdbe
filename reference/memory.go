package reference

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Memory bounds (issue 29). What one request can make the service hold is
// bounded twice:
//
//   - a read budget: the bytes of stored metadata a request reads from the
//     store on its caller's behalf (an entity's aspects, a page of tokens,
//     a list of policies), counted as they are read, past which the read
//     stops and the request is refused (EBADREQUEST, "limit: readBytes");
//   - a process-wide bound on the bytes requests hold at once (MemoryPool):
//     what they read, the bodies of the writes they make, the answers they
//     build. A request that would take it past its capacity is refused at
//     once with EUNAVAILABLE (503 and Retry-After) rather than queued: a
//     request waiting for memory would wait holding what it already has,
//     and two such requests could wait for each other for ever; refused,
//     it lets go at once, and DataHub's SDK retries a 503 after a pause.
//
// A request's first FreeBytes are not counted against the process-wide
// bound, so that the requests of every day (a `me`, a token, a policy)
// never touch it: only the few that hold megabytes do.
//
// The service's own reads (the policies, the caller's user and token as
// authentication and authorization read them) are not the caller's asking
// and are not counted: a read counts only through a context from Metered.

// Defaults of the bounds; the operator's settings (CATALOGD_MAX_READ_BYTES,
// CATALOGD_MAX_BYTES_IN_FLIGHT) replace them.
const (
	// DefaultMaxReadBytes is a request's read budget: twice the largest
	// aspect a write can carry (DataHub's 16,000,000-byte ingestion limit),
	// so that any entity of two such aspects is read whole, and a page of
	// 1,000 tokens as large as they may be (13.9 MB) twice over.
	DefaultMaxReadBytes = 32 << 20
	// DefaultMaxBytesInFlight is the process-wide bound: a handful of the
	// largest requests at once, well under a small container's memory.
	DefaultMaxBytesInFlight = 256 << 20
	// FreeBytes is what each request holds without counting against the
	// process-wide bound.
	FreeBytes = 1 << 20
	// reserveChunk is how much a request takes from the pool at a time.
	reserveChunk = 1 << 20
)

// ErrBusy refuses a request that would take the bytes held by the requests
// in flight past the process-wide bound.
var ErrBusy = &Error{Code: EUNAVAILABLE, Message: "catalogd is busy: the requests in flight hold as much memory as it lets requests hold (CATALOGD_MAX_BYTES_IN_FLIGHT); try again shortly"}

// MemoryPool is the process-wide bound on the bytes requests hold at once.
type MemoryPool struct {
	capacity int64
	used     atomic.Int64
	// holders is how many requests hold memory from the pool, at most
	// maxHolders.
	holders    atomic.Int64
	maxHolders int64
	// onHolding, when set, is told whether requests hold any of the pool,
	// each time that changes (settle).
	mu        sync.Mutex
	onHolding func(holding bool)
	holding   bool
}

// OnHolding has f told, each time it changes, whether any request holds
// memory from the pool: catalogd collects garbage more eagerly while some
// do (cmd/catalogd). f runs under a lock, in the request that made the
// change; it must be quick.
func (p *MemoryPool) OnHolding(f func(holding bool)) {
	p.mu.Lock()
	p.onHolding = f
	p.mu.Unlock()
}

// settle tells onHolding of a change of whether the pool is in use.
func (p *MemoryPool) settle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.onHolding == nil {
		return
	}
	if holding := p.used.Load() > 0; holding != p.holding {
		p.holding = holding
		p.onHolding(holding)
	}
}

// NewMemoryPool returns a pool of capacity bytes (DefaultMaxBytesInFlight
// when capacity is not positive).
func NewMemoryPool(capacity int64) *MemoryPool {
	if capacity <= 0 {
		capacity = DefaultMaxBytesInFlight
	}
	return &MemoryPool{capacity: capacity, maxHolders: int64(max(4, 2*runtime.GOMAXPROCS(0)))}
}

// Capacity is the pool's bound in bytes.
func (p *MemoryPool) Capacity() int64 { return p.capacity }

// Used is how many bytes the requests in flight have taken from the pool.
func (p *MemoryPool) Used() int64 { return p.used.Load() }

func (p *MemoryPool) take(n int64) bool {
	for {
		u := p.used.Load()
		if u+n > p.capacity {
			return false
		}
		if p.used.CompareAndSwap(u, u+n) {
			if u == 0 {
				p.settle()
			}
			return true
		}
	}
}

// enter counts one more request holding memory from the pool, unless as
// many as may already do.
func (p *MemoryPool) enter() bool {
	for {
		h := p.holders.Load()
		if h >= p.maxHolders {
			return false
		}
		if p.holders.CompareAndSwap(h, h+1) {
			return true
		}
	}
}

func (p *MemoryPool) leave() { p.holders.Add(-1) }

func (p *MemoryPool) give(n int64) {
	if p.used.Add(-n) == 0 {
		p.settle()
	}
}

// Memory is one request's account of the bytes it holds. Its methods may
// be called from several goroutines; a nil *Memory counts nothing.
type Memory struct {
	pool      *MemoryPool
	readLimit int64
	read      atomic.Int64
	held      atomic.Int64
	reserved  atomic.Int64
	prepaid   atomic.Int64
	readOver  atomic.Bool
}

// Open starts the account of a request whose read budget is readLimit
// bytes (DefaultMaxReadBytes when not positive). Close ends it.
func (p *MemoryPool) Open(readLimit int64) *Memory {
	m := &Memory{}
	p.Init(m, readLimit)
	return m
}

// Init starts m as Open does, for an account kept inside something else.
func (p *MemoryPool) Init(m *Memory, readLimit int64) {
	if readLimit <= 0 {
		readLimit = DefaultMaxReadBytes
	}
	m.pool, m.readLimit = p, readLimit
}

// Close gives back what the request took from the pool.
func (m *Memory) Close() {
	if m == nil || m.pool == nil {
		return
	}
	if r := m.reserved.Swap(0); r > 0 {
		m.pool.give(r)
		m.pool.leave()
	}
}

// Hold counts n more bytes held by the request, taking them from the pool
// once the request holds more than FreeBytes; ErrBusy when the pool has
// not got them.
func (m *Memory) Hold(n int64) error {
	if m == nil || m.pool == nil || n <= 0 {
		return nil
	}
	held := m.held.Add(n)
	for {
		r := m.reserved.Load()
		need := held - FreeBytes - r
		if need <= 0 {
			return nil
		}
		chunk := (need + reserveChunk - 1) / reserveChunk * reserveChunk
		if r == 0 && !m.pool.enter() {
			m.held.Add(-n)
			return ErrBusy
		}
		if !m.pool.take(chunk) {
			if r == 0 {
				m.pool.leave()
			}
			m.held.Add(-n)
			return ErrBusy
		}
		if m.reserved.CompareAndSwap(r, r+chunk) {
			return nil
		}
		m.pool.give(chunk) // another goroutine of the request took some meanwhile
		if r == 0 {
			m.pool.leave()
		}
	}
}

// Read counts n bytes of stored metadata read on the caller's behalf:
// against the read budget (an EBADREQUEST naming it past the budget), and
// as held.
func (m *Memory) Read(n int64) error {
	if m == nil || m.pool == nil {
		return nil
	}
	if m.read.Add(n) > m.readLimit {
		m.readOver.Store(true)
		return m.readRefusal()
	}
	for {
		p := m.prepaid.Load()
		if p <= 0 {
			return m.Hold(n)
		}
		use := min(p, n)
		if m.prepaid.CompareAndSwap(p, p-use) {
			return m.Hold(n - use)
		}
	}
}

// Prepay holds n bytes a read is about to make, before it starts, so that
// a request the bound cannot serve is refused before the store does the
// work; the read's bytes count against it first.
func (m *Memory) Prepay(n int64) error {
	if m == nil || m.pool == nil || n <= 0 {
		return nil
	}
	if err := m.Hold(n); err != nil {
		return err
	}
	m.prepaid.Add(n)
	return nil
}

// Prepay is Memory.Prepay on the account of ctx's request.
func Prepay(ctx context.Context, n int) error {
	return MemoryFromContext(ctx).Prepay(int64(n))
}

func (m *Memory) readRefusal() error {
	return Errorf(EBADREQUEST, "the request would read more than %d bytes of stored metadata (limit: readBytes, CATALOGD_MAX_READ_BYTES); ask for fewer entities, aspects or items", m.readLimit)
}

// ReadRefusal is the refusal of a request that went past its read budget,
// nil when it did not.
func (m *Memory) ReadRefusal() error {
	if m == nil || !m.readOver.Load() {
		return nil
	}
	return m.readRefusal()
}

// BytesRead is how many bytes the request has read on its caller's behalf.
func (m *Memory) BytesRead() int64 {
	if m == nil {
		return 0
	}
	return m.read.Load()
}

type memoryKey struct{}

type meteredKey struct{}

// NewContextWithMemory returns ctx carrying a request's account.
func NewContextWithMemory(ctx context.Context, m *Memory) context.Context {
	return context.WithValue(ctx, memoryKey{}, m)
}

// MemoryFromContext returns the account of ctx's request, nil when none.
func MemoryFromContext(ctx context.Context) *Memory {
	m, _ := ctx.Value(memoryKey{}).(*Memory)
	return m
}

// Metered returns ctx whose reads from the store count against its
// request's read budget: for the reads a caller asks for.
func Metered(ctx context.Context) context.Context {
	m := MemoryFromContext(ctx)
	if m == nil {
		return ctx
	}
	return context.WithValue(ctx, meteredKey{}, m)
}

// ChargeRead is for Stores: it counts n bytes read through ctx against the
// read budget of its request when ctx is Metered, and says to stop reading
// when they go past it (or past the process-wide bound).
func ChargeRead(ctx context.Context, n int) error {
	m, _ := ctx.Value(meteredKey{}).(*Memory)
	if m == nil {
		return nil
	}
	return m.Read(int64(n))
}

// AspectBytes is what a Store counts for one aspect read: its value and
// the strings beside it.
func AspectBytes(a Aspect) int {
	return len(a.Value) + len(a.URN.EntityType) + len(a.URN.ID) + len(a.Name) + len(a.CreatedBy) + 64
}

// String describes the account, for logs.
func (m *Memory) String() string {
	if m == nil {
		return "no account"
	}
	return fmt.Sprintf("read %d of %d bytes, held %d, %d from the pool", m.read.Load(), m.readLimit, m.held.Load(), m.reserved.Load())
}
