package runner

import (
	"fmt"
	"sync/atomic"
	"time"
)

// waitStats counts, over a run, the waits for a change to show: the
// eventually calls whose first try did not find it.
type waitStats struct {
	count   atomic.Int64
	total   atomic.Int64 // nanoseconds
	longest atomic.Int64 // nanoseconds
}

func (s *waitStats) Add(d time.Duration) {
	s.count.Add(1)
	s.total.Add(int64(d))
	for {
		l := s.longest.Load()
		if int64(d) <= l || s.longest.CompareAndSwap(l, int64(d)) {
			return
		}
	}
}

// summary is one line on the waits.
func (s *waitStats) summary() string {
	n := s.count.Load()
	if n == 0 {
		return "no step waited for a change to show"
	}
	return fmt.Sprintf("%d waits for a change to show, %s in all (they overlap), the longest %s",
		n, time.Duration(s.total.Load()).Round(time.Millisecond), time.Duration(s.longest.Load()).Round(time.Millisecond))
}
