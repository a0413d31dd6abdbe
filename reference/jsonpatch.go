package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// JSON Patch (RFC 6902) over JSON values that keep the order of their
// objects' members, as DataHub's patch engine applies it (javax.json's
// JsonPatch over Jackson trees, whose objects keep insertion order): a
// tag added by a patch goes after the tags already there, and one replaced
// keeps its place.

// object is a JSON object that keeps the order of its members.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// set puts v under k: in place when k is there, else last.
func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) remove(k string) bool {
	if _, ok := o.vals[k]; !ok {
		return false
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
	return true
}

// decodeOrdered decodes JSON text into nil, bool, json.Number, string,
// []any and *object.
func decodeOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(k.(string), v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return list, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// encodeOrdered writes v as JSON text, objects in their order.
func encodeOrdered(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeOrdered(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeOrdered(b *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case *object:
		b.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			if err := writeOrdered(b, t.vals[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeOrdered(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		vb, err := json.Marshal(t)
		if err != nil {
			return err
		}
		b.Write(vb)
	}
	return nil
}

// deepCopy copies a decoded value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case *object:
		o := &object{keys: append([]string(nil), t.keys...), vals: make(map[string]any, len(t.vals))}
		for k, e := range t.vals {
			o.vals[k] = deepCopy(e)
		}
		return o
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// jsonEqual compares two decoded values as JSON (numbers by value,
// objects whatever their order).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case *object:
		y, ok := b.(*object)
		if !ok || len(x.vals) != len(y.vals) {
			return false
		}
		for k, v := range x.vals {
			w, ok := y.vals[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, ex := x.Float64()
		fy, ey := y.Float64()
		return ex == nil && ey == nil && fx == fy
	}
	return a == b
}

// PatchOp is one operation of a JSON Patch.
type PatchOp struct {
	Op    string
	Path  string
	From  string
	Value any // decoded; nil for JSON null
	// HasValue says the operation carried a "value".
	HasValue bool
}

// patchOps are the operations DataHub accepts (PatchOperationType).
var patchOps = map[string]bool{"add": true, "remove": true, "replace": true, "move": true, "copy": true, "test": true}

// decodePatchOps reads a JSON Patch, a list of operations.
func decodePatchOps(v any) ([]PatchOp, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("a JSON Patch is a list of operations")
	}
	ops := make([]PatchOp, len(list))
	for i, e := range list {
		o, ok := e.(*object)
		if !ok {
			return nil, fmt.Errorf("operation %d of the patch is not a JSON object", i+1)
		}
		op, _ := o.vals["op"].(string)
		if !patchOps[op] {
			return nil, fmt.Errorf("operation %d: unsupported patch operation %s (add, remove, replace, move, copy or test)", i+1, Excerpt(fmt.Sprint(o.vals["op"])))
		}
		path, ok := o.vals["path"].(string)
		if !ok {
			return nil, fmt.Errorf(`operation %d has no "path" string`, i+1)
		}
		ops[i] = PatchOp{Op: op, Path: path}
		ops[i].Value, ops[i].HasValue = o.get("value")
		if op == "move" || op == "copy" {
			from, ok := o.vals["from"].(string)
			if !ok {
				return nil, fmt.Errorf(`operation %d (%s) has no "from" string`, i+1, op)
			}
			ops[i].From = from
		}
		if (op == "add" || op == "replace" || op == "test") && !ops[i].HasValue {
			return nil, fmt.Errorf(`operation %d (%s) has no "value"`, i+1, op)
		}
	}
	return ops, nil
}

// pointer splits a JSON Pointer (RFC 6901) into its unescaped tokens.
func pointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("the path %s does not start with /", Excerpt(p))
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// applyPatch applies ops to doc in order and returns the result; doc is
// changed in place where it can be. An operation that cannot apply fails
// the whole patch, as RFC 6902 says.
func applyPatch(doc any, ops []PatchOp) (any, error) {
	for i, op := range ops {
		var err error
		doc, err = applyOp(doc, op)
		if err != nil {
			return nil, fmt.Errorf("operation %d (%s %s): %w", i+1, op.Op, Excerpt(op.Path), err)
		}
	}
	return doc, nil
}

func applyOp(doc any, op PatchOp) (any, error) {
	path, err := pointer(op.Path)
	if err != nil {
		return nil, err
	}
	switch op.Op {
	case "add":
		return addAt(doc, path, deepCopy(op.Value))
	case "remove":
		doc, _, err := removeAt(doc, path)
		return doc, err
	case "replace":
		if _, err := valueAt(doc, path); err != nil {
			return nil, err
		}
		doc, _, err := removeAt(doc, path)
		if err != nil {
			return nil, err
		}
		return addAt(doc, path, deepCopy(op.Value))
	case "move":
		from, err := pointer(op.From)
		if err != nil {
			return nil, err
		}
		if len(path) > len(from) && strings.HasPrefix(op.Path, op.From+"/") {
			return nil, errors.New("a value cannot be moved into itself")
		}
		doc, v, err := removeAt(doc, from)
		if err != nil {
			return nil, err
		}
		return addAt(doc, path, v)
	case "copy":
		from, err := pointer(op.From)
		if err != nil {
			return nil, err
		}
		v, err := valueAt(doc, from)
		if err != nil {
			return nil, err
		}
		return addAt(doc, path, deepCopy(v))
	case "test":
		v, err := valueAt(doc, path)
		if err != nil {
			return nil, err
		}
		if !jsonEqual(v, op.Value) {
			return nil, errors.New("the test failed: the value there is another")
		}
		return doc, nil
	}
	return nil, fmt.Errorf("unsupported operation %s", op.Op)
}

// valueAt is the value the pointer names.
func valueAt(doc any, path []string) (any, error) {
	cur := doc
	for _, tok := range path {
		switch c := cur.(type) {
		case *object:
			v, ok := c.get(tok)
			if !ok {
				return nil, fmt.Errorf("there is no member %s", Excerpt(tok))
			}
			cur = v
		case []any:
			i, err := arrayIndex(tok, len(c), false)
			if err != nil {
				return nil, err
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("%s is below a value that is neither an object nor a list", Excerpt(tok))
		}
	}
	return cur, nil
}

// arrayIndex reads an array index; "-" (one past the end) only when
// appending.
func arrayIndex(tok string, n int, appending bool) (int, error) {
	if tok == "-" && appending {
		return n, nil
	}
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, fmt.Errorf("%s is not a list index", Excerpt(tok))
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 {
		return 0, fmt.Errorf("%s is not a list index", Excerpt(tok))
	}
	limit := n - 1
	if appending {
		limit = n
	}
	if i > limit {
		return 0, fmt.Errorf("the index %d is past the end of the list", i)
	}
	return i, nil
}

// addAt adds v at path: the parent must exist.
func addAt(doc any, path []string, v any) (any, error) {
	if len(path) == 0 {
		return v, nil
	}
	parent, err := valueAt(doc, path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	last := path[len(path)-1]
	switch p := parent.(type) {
	case *object:
		p.set(last, v)
		return doc, nil
	case []any:
		i, err := arrayIndex(last, len(p), true)
		if err != nil {
			return nil, err
		}
		// In place: the document is the patch's own copy.
		return replaceAt(doc, path[:len(path)-1], slices.Insert(p, i, v))
	}
	return nil, errors.New("the parent of the path is neither an object nor a list")
}

// removeAt removes the value at path (which must exist) and returns it.
func removeAt(doc any, path []string) (any, any, error) {
	if len(path) == 0 {
		return nil, doc, nil
	}
	parent, err := valueAt(doc, path[:len(path)-1])
	if err != nil {
		return nil, nil, err
	}
	last := path[len(path)-1]
	switch p := parent.(type) {
	case *object:
		v, ok := p.get(last)
		if !ok {
			return nil, nil, fmt.Errorf("there is no member %s to remove", Excerpt(last))
		}
		p.remove(last)
		return doc, v, nil
	case []any:
		i, err := arrayIndex(last, len(p), false)
		if err != nil {
			return nil, nil, err
		}
		v := p[i]
		doc, err := replaceAt(doc, path[:len(path)-1], slices.Delete(p, i, i+1))
		return doc, v, err
	}
	return nil, nil, errors.New("the parent of the path is neither an object nor a list")
}

// replaceAt puts v where path is (which exists): lists are values in Go,
// so a list that grows or shrinks is put back into its parent.
func replaceAt(doc any, path []string, v any) (any, error) {
	if len(path) == 0 {
		return v, nil
	}
	parent, err := valueAt(doc, path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	last := path[len(path)-1]
	switch p := parent.(type) {
	case *object:
		p.set(last, v)
	case []any:
		i, err := arrayIndex(last, len(p), false)
		if err != nil {
			return nil, err
		}
		p[i] = v
	}
	return doc, nil
}
