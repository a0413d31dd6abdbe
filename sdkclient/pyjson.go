package sdkclient

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Obj is a JSON object whose members keep their order, as the dicts the
// SDK builds do (avro's to_obj fills them in the schema's field order).
type Obj []Member

// Member is one member of an Obj.
type Member struct {
	Key   string
	Value any
}

// Get returns the value of key, nil when absent.
func (o Obj) Get(key string) any {
	for _, m := range o {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// Dumps encodes v as Python's json.dumps(v) does with its defaults, which
// is how the SDK serialises every body it sends: ", " between items, ": "
// after keys, and ensure_ascii (every character outside ' '..'~' escaped,
// \uXXXX in lower-case hex, surrogate pairs beyond the BMP). Values: nil,
// bool, int, int64, string, Obj, []any, []Obj.
func Dumps(v any) []byte {
	var b strings.Builder
	dump(&b, v)
	return []byte(b.String())
}

func dump(b *strings.Builder, v any) {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case int:
		b.WriteString(strconv.Itoa(t))
	case int64:
		b.WriteString(strconv.FormatInt(t, 10))
	case string:
		dumpString(b, t)
	case Obj:
		b.WriteByte('{')
		for i, m := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			dumpString(b, m.Key)
			b.WriteString(": ")
			dump(b, m.Value)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			dump(b, e)
		}
		b.WriteByte(']')
	case []Obj:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			dump(b, e)
		}
		b.WriteByte(']')
	default:
		panic(fmt.Sprintf("sdkclient: Dumps cannot encode %T", v))
	}
}

// dumpString is Python's py_encode_basestring_ascii.
func dumpString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r >= ' ' && r <= '~':
			b.WriteRune(r)
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(b, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
}
