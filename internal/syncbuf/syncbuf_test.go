package syncbuf

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Writers and a reader at once: every write is kept whole.
func TestBufferKeepsConcurrentWritesWhole(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 100 {
				fmt.Fprintf(&b, "g%d-%03d\n", g, i)
				_ = b.String()
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 400 {
		t.Fatalf("%d lines, want 400", len(lines))
	}
	for _, l := range lines {
		if len(l) != len("g0-000") {
			t.Errorf("a write was torn: %q", l)
		}
	}
}
