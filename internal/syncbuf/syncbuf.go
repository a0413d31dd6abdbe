// Package syncbuf is a text buffer that one goroutine may write (a
// server's log, a command's output) while another reads it: the tests'
// way to watch what a running thing says.
package syncbuf

import (
	"strings"
	"sync"
)

// Buffer is a strings.Builder safe for concurrent writes and reads. The
// zero value is empty and ready.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p; it never fails.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
