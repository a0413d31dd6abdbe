package catalogdtest

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
)

// lines keeps the last lines catalogd printed, and copies all it prints to
// a log when there is one.
type lines struct {
	mu   sync.Mutex
	log  io.Writer
	ring []string
	next int // where the next line goes in ring, once it is full
	full bool
	bufs []*lineWriter
}

func newLines(n int, log io.Writer) *lines {
	return &lines{log: log, ring: make([]string, 0, n)}
}

// writer is an io.Writer for one of catalogd's streams. Lines of a stream
// with a prefix (stdout) go to the log masked after it; the others (the
// log on stderr) go as they are.
func (l *lines) writer(prefix string) io.Writer {
	w := &lineWriter{l: l, prefix: prefix}
	l.mu.Lock()
	l.bufs = append(l.bufs, w)
	l.mu.Unlock()
	return w
}

// flush keeps what the streams printed after their last newline.
func (l *lines) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range l.bufs {
		if w.partial.Len() > 0 {
			l.addLocked(w, w.partial.String())
			w.partial.Reset()
		}
	}
}

func (l *lines) addLocked(w *lineWriter, line string) {
	if w.prefix != "" {
		line = w.prefix + maskLine(line)
		if l.log != nil {
			_, _ = io.WriteString(l.log, line+"\n")
		}
	}
	if len(l.ring) < cap(l.ring) {
		l.ring = append(l.ring, line)
		return
	}
	l.ring[l.next] = line
	l.next = (l.next + 1) % len(l.ring)
}

// last is the last n lines, masked.
func (l *lines) last(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	all := append(append([]string(nil), l.ring[l.next:]...), l.ring[:l.next]...)
	if len(all) > n {
		all = all[len(all)-n:]
	}
	for i := range all {
		all[i] = maskLine(all[i])
	}
	return strings.Join(all, "\n")
}

type lineWriter struct {
	l       *lines
	prefix  string
	partial bytes.Buffer
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	if w.prefix == "" && w.l.log != nil {
		_, _ = w.l.log.Write(p)
	}
	rest := p
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			w.partial.Write(rest)
			return len(p), nil
		}
		w.partial.Write(rest[:i])
		w.l.addLocked(w, w.partial.String())
		w.partial.Reset()
		rest = rest[i+1:]
	}
}

const masked = "[masked]"

// jwtShape matches anything shaped like a JWT, signed or not.
var jwtShape = regexp.MustCompile(`eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`)

// maskLine hides the credentials catalogd may print on a line: tokens, and
// a generated password, which it shows once after the line's last ": ".
func maskLine(line string) string {
	line = jwtShape.ReplaceAllString(line, masked)
	if strings.Contains(strings.ToLower(line), "password") {
		if i := strings.LastIndex(line, ": "); i >= 0 {
			line = line[:i+2] + masked
		}
	}
	return line
}

// maskText is maskLine on each line of s.
func maskText(s string) string {
	ls := strings.Split(s, "\n")
	for i := range ls {
		ls[i] = maskLine(ls[i])
	}
	return strings.Join(ls, "\n")
}

// LastLines is the last n lines of s: the end of a program's output, for
// an error message.
func LastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}
