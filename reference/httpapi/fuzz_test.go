package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/catalogspec/catalogspec/reference"
)

// FuzzGraphQLRequest: the GraphQL request decoder never panics, never
// quotes more than a short prefix of the body, and what it accepts is a JSON
// object with a non-blank query string and no key given twice.
func FuzzGraphQLRequest(f *testing.F) {
	for _, s := range []string{
		`{"query":"{ me { corpUser { urn } } }"}`,
		`{"query":"q","variables":null,"operationName":null,"extensions":null}`,
		`{"query":"q","query":"mutation { x }"}`,
		`{"query":"   "}`, `{"query":1}`, `[]`, `null`, `{`, ``, `{"query":"q","variables":[1]}`,
		`{"query":"q","operationName":7}`, `{"query":"q","extensions":"x"}`, `{"query":"a\u0000b"}`,
		`{"` + strings.Repeat("k", 300) + `":1,"` + strings.Repeat("k", 300) + `":2,"query":"q"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		err := checkGraphQLRequest(body)
		if err != nil {
			if len(err.Error()) > 200 {
				t.Fatalf("the message is %d bytes: %.300s", len(err.Error()), err)
			}
			return
		}
		var params map[string]json.RawMessage
		if json.Unmarshal(body, &params) != nil {
			t.Fatalf("accepted a body that is not a JSON object: %q", body)
		}
		var q string
		if json.Unmarshal(params["query"], &q) != nil || strings.TrimSpace(q) == "" {
			t.Fatalf("accepted a body without a query string: %q", body)
		}
		if _, dup := duplicateKey(body); dup {
			t.Fatalf("accepted a body with a key given twice: %q", body)
		}
	})
}

// FuzzProposal: the ingestProposal decoder never panics, quotes nothing of
// the body, and what it accepts had a "proposal" object.
func FuzzProposal(f *testing.F) {
	for _, s := range []string{
		`{"proposal":{"entityType":"dataset","entityUrn":"urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)","changeType":"UPSERT","aspectName":"status","aspect":{"value":"{\"removed\":false}","contentType":"application/json"}}}`,
		`{"proposal":null}`, `{}`, `{"proposal":{}}`, `{"proposal":[]}`, `{"proposal":{"aspect":{"value":7}}}`, `nope`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, err := decodeProposal(body)
		if err != nil {
			if len(err.Error()) > 100 {
				t.Fatalf("the message is %d bytes", len(err.Error()))
			}
			return
		}
		var raw struct {
			Proposal map[string]json.RawMessage `json:"proposal"`
		}
		if json.Unmarshal(body, &raw) != nil || raw.Proposal == nil {
			t.Fatalf("accepted %q without a proposal object", body)
		}
	})
}

// duplicateKey, the fuzz target's oracle written apart from the code it
// checks, returns a key that occurs twice at the top level of a JSON
// object. encoding/json keeps the last, so a second "query" could hide a
// mutation behind the query a proxy or log saw first.
func duplicateKey(body []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		key, _ := t.(string)
		if seen[key] {
			return key, true
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// FuzzOpenAPIItems: the OpenAPI v3 body decoder never panics, its messages
// stay short and quote at most a key's excerpt, and what it accepts for a
// write is a JSON list of objects, each with a urn and each aspect's value
// an object.
func FuzzOpenAPIItems(f *testing.F) {
	for _, s := range []string{
		`[{"urn": "urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)", "datasetProperties": {"value": {"description": "d"}, "systemMetadata": null, "headers": {}}}]`,
		`[]`, `{}`, `[{}]`, `[{"urn": 1}]`, `[{"urn": "u", "a": {"value": "x"}}]`, `[{"urn": "u", "a": []}]`, `[1]`, `[`, ``,
		`[{"urn": "u", "` + strings.Repeat("k", 300) + `": {"value": {}}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		items, err := decodeOpenAPIItems(body, true)
		if err != nil {
			if len(err.Error()) > 160 {
				t.Fatalf("the message is %d bytes: %.300s", len(err.Error()), err)
			}
			return
		}
		var raw []map[string]json.RawMessage
		if json.Unmarshal(body, &raw) != nil || len(raw) != len(items) {
			t.Fatalf("accepted %q, which is not a JSON list of %d objects", body, len(items))
		}
		for i, it := range items {
			if it.urn == "" {
				t.Fatalf("accepted an entity without a urn: %q", body)
			}
			for _, a := range it.aspects {
				var v map[string]json.RawMessage
				if json.Unmarshal(a.value, &v) != nil || v == nil {
					t.Fatalf("accepted the aspect %q of entity %d whose value is not an object: %q", a.name, i+1, body)
				}
			}
		}
	})
}

// FuzzGraphQLRequestParse: the one-pass parser (issue 31) accepts and
// refuses exactly what the decoder before it did, with the same message,
// and what it returns is what encoding/json reads in the body.
func FuzzGraphQLRequestParse(f *testing.F) {
	for _, s := range []string{
		`{"query":"{ me { corpUser { urn } } }"}`,
		`{"query":"q","variables":null,"operationName":null,"extensions":null}`,
		`{"query":"q","variables":{ },"operationName":"Op"}`, `{"query":"q","variables":{"a":[1,{"b":"}"}]}}`,
		`{"qu\u0065ry":"q","query":"r"}`, `{"query":"\u00e9\ud800","operationName":"a\"b"}`, "{\"query\":\"\xff\"}",
		` { "query" : "q" , "x" : [ 1 , "]" ] } `, `{"query":"q","x":{"query":1}}`, `{"query":"\u2028"}`,
		`{"query":"a","Query":"b"}`, `{"query":"a","operationname":"X"}`, `{"query":"a","variableſ":{"x":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := parseGraphQLRequest(body)
		before := checkGraphQLRequestBefore(body)
		if (err == nil) != (before == nil) || err != nil && err.Error() != before.Error() {
			t.Fatalf("%q: %v, before %v", body, err, before)
		}
		if err != nil {
			return
		}
		var params struct {
			Query         string         `json:"query"`
			OperationName *string        `json:"operationName"`
			Variables     map[string]any `json:"variables"`
		}
		if e := json.Unmarshal(body, &params); e != nil {
			t.Fatalf("%q: %v", body, e)
		}
		name := ""
		if params.OperationName != nil {
			name = *params.OperationName
		}
		if got.folded {
			return // only gqlgen answers it
		}
		if got.query != params.Query || got.operationName != name || got.variables != (len(params.Variables) > 0) {
			t.Fatalf("%q: read %+v, encoding/json %+v", body, got, params)
		}
	})
}

// checkGraphQLRequestBefore is checkGraphQLRequest as it was before the
// one-pass parser.
func checkGraphQLRequestBefore(body []byte) error {
	if !json.Valid(body) {
		return errors.New("request body is not a valid JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("request body is not a valid JSON object")
	}
	seen := map[string]bool{}
	hasQuery := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return errors.New("request body is not a valid JSON object")
		}
		key, _ := t.(string)
		if seen[key] {
			return fmt.Errorf("request body has the key %s more than once; which one counts is ambiguous", reference.Excerpt(key))
		}
		seen[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return errors.New("request body is not a valid JSON object")
		}
		switch key {
		case "query":
			var query string
			if err := json.Unmarshal(v, &query); err != nil || strings.TrimSpace(query) == "" {
				return errors.New(`request body has no "query" string`)
			}
			hasQuery = true
		case "variables":
			if !null(v) && v[0] != '{' {
				return errors.New(`"variables" must be a JSON object`)
			}
		case "operationName":
			if !null(v) && v[0] != '"' {
				return errors.New(`"operationName" must be a string`)
			}
		case "extensions":
			if !null(v) && v[0] != '{' {
				return errors.New(`"extensions" must be a JSON object`)
			}
		}
	}
	if !hasQuery {
		return errors.New(`request body has no "query" string`)
	}
	return nil
}
