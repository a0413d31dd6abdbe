package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestEncodeJSONAsEncodingJSON: answers written as they are encoded are
// the bytes json.Encoder writes for the same value: keys sorted, stored
// JSON compacted, <, >, & and U+2028, U+2029 escaped in it and in keys.
func TestEncodeJSONAsEncodingJSON(t *testing.T) {
	stored := json.RawMessage("{\"a\": [1, 2.5e3, true, null], \"b <&>\": \"x \\\" y\\\\\", \"c\": {\"d\": \"\u2028\u2029 \\u0041\"},\n\t\"e\": \"   \"}")
	for name, v := range map[string]any{
		"an entity snapshot": map[string]any{"value": map[string]any{"com.x.Snapshot": map[string]any{"urn": "urn:li:tag:<a&b>", "aspects": []map[string]json.RawMessage{{"com.x.A": stored}, {"com.x.B": json.RawMessage(`{}`)}}}}},
		"an aspect":          map[string]any{"aspect": map[string]json.RawMessage{"com.x.A": stored}, "version": 0},
		"a batch":            []map[string]any{{"urn": "u", "b": map[string]json.RawMessage{"value": stored}}, {"urn": "v"}},
		"empty and nil":      map[string]any{"results": map[string]any{}, "none": []map[string]any(nil), "raw": json.RawMessage(nil), "list": []any{1, "two", nil}},
		"an error":           errorBody{Status: 400, Error: "Bad <Request>", Message: "m", Path: "/p"},
		"a string map":       map[string]string{"value": "urn:li:corpuser:x"},
		"no list":            []map[string]any{},
	} {
		var want, got bytes.Buffer
		if err := json.NewEncoder(&want).Encode(v); err != nil {
			t.Fatal(err)
		}
		if err := encodeJSON(&got, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.String() != want.String() {
			t.Errorf("%s:\n got %s\nwant %s", name, got.String(), want.String())
		}
	}
}

// FuzzEncodeJSON: whatever valid JSON is stored, it is written as
// encoding/json writes it.
func FuzzEncodeJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": "b"}`, "[1, \"\u2028\", {\"<\": \"&\"}]", `"x\"y"`, `{"a":"\\"}`, ` { "k" : [ ] } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		v := map[string]any{"v": json.RawMessage(raw)}
		var want, got bytes.Buffer
		if err := json.NewEncoder(&want).Encode(v); err != nil {
			return
		}
		if err := encodeJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("got %q, want %q", got.String(), want.String())
		}
	})
}
