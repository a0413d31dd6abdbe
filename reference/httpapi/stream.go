package httpapi

import (
	"bufio"
	"encoding/json"
	"io"
	"slices"
	"sync"
)

// Answers are written as they are encoded (issue 29): an entity read holds
// the aspects it read from the store and nothing more, where encoding/json
// would build the whole answer in memory first (and copy each aspect once
// more to compact it), doubling what a large read holds. The bytes are
// those encoding/json writes for the same value: map keys sorted, strings
// and stored JSON compacted with <, >, & and U+2028, U+2029 escaped, and a
// newline at the end, as json.Encoder.Encode writes them.

var writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 16<<10) }}

// encodeJSON writes v to w as json.NewEncoder(w).Encode(v) would.
func encodeJSON(w io.Writer, v any) error {
	bw := writers.Get().(*bufio.Writer)
	bw.Reset(w)
	defer func() {
		bw.Reset(nil)
		writers.Put(bw)
	}()
	if err := encodeValue(bw, v); err != nil {
		return err
	}
	if err := bw.WriteByte('\n'); err != nil {
		return err
	}
	return bw.Flush()
}

// encodeValue streams the shapes the answers are built of; any other
// value (small: an error, a status) is marshalled whole.
func encodeValue(w *bufio.Writer, v any) error {
	switch v := v.(type) {
	case json.RawMessage:
		if v == nil {
			_, err := w.WriteString("null")
			return err
		}
		return writeCompact(w, v)
	case map[string]any:
		if v == nil {
			_, err := w.WriteString("null")
			return err
		}
		return encodeObject(w, v)
	case map[string]json.RawMessage:
		if v == nil {
			_, err := w.WriteString("null")
			return err
		}
		return encodeObject(w, v)
	case []map[string]any:
		if v == nil {
			_, err := w.WriteString("null")
			return err
		}
		return encodeArray(w, v)
	case []map[string]json.RawMessage:
		if v == nil {
			_, err := w.WriteString("null")
			return err
		}
		return encodeArray(w, v)
	case []any:
		if v == nil {
			_, err := w.WriteString("null")
			return err
		}
		return encodeArray(w, v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func encodeObject[V any](w *bufio.Writer, m map[string]V) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if err := w.WriteByte('{'); err != nil {
		return err
	}
	for i, k := range keys {
		if i > 0 {
			_ = w.WriteByte(',')
		}
		key, err := json.Marshal(k)
		if err != nil {
			return err
		}
		_, _ = w.Write(key)
		_ = w.WriteByte(':')
		if err := encodeValue(w, m[k]); err != nil {
			return err
		}
	}
	return w.WriteByte('}')
}

func encodeArray[V any](w *bufio.Writer, s []V) error {
	if err := w.WriteByte('['); err != nil {
		return err
	}
	for i, v := range s {
		if i > 0 {
			_ = w.WriteByte(',')
		}
		if err := encodeValue(w, v); err != nil {
			return err
		}
	}
	return w.WriteByte(']')
}

const hexDigits = "0123456789abcdef"

// writeCompact writes stored JSON (valid: PostgreSQL's jsonb, or a value
// the service checked) without the spaces outside its strings, escaping
// <, >, & and U+2028, U+2029 as encoding/json does.
func writeCompact(w *bufio.Writer, src []byte) error {
	inString, escaped := false, false
	start := 0
	flush := func(i int) {
		if start < i {
			_, _ = w.Write(src[start:i])
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			flush(i)
			_, _ = w.Write([]byte{'\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF]})
			start = i + 1
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8:
			flush(i)
			_, _ = w.Write([]byte{'\\', 'u', '2', '0', '2', hexDigits[src[i+2]&0xF]})
			i += 2
			start = i + 1
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush(i)
			start = i + 1
		}
	}
	flush(len(src))
	return nil
}
