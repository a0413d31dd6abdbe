package reference

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The patch engine against what DataHub's templates do with what its SDK's
// patch builders send (metadata-ingestion/src/datahub/specific/): each case
// is an aspect stored (or none), a patch, and the aspect after.
func TestApplyPatchFollowsDataHubsTemplates(t *testing.T) {
	now := time.UnixMilli(1711540000000)
	stamp := `{"time":1711540000000,"actor":"urn:li:corpuser:__datahub_system"}`
	cases := []struct {
		name, aspect, current, patch, want string
	}{
		{"a tag added to no tags starts from the default", "globalTags", ``,
			`[{"op":"add","path":"/tags/urn:li:tag:pii","value":{"tag":"urn:li:tag:pii"}}]`,
			`{"tags":[{"tag":"urn:li:tag:pii"}]}`},
		{"a tag added goes after those there, and one there twice stays once", "globalTags",
			`{"tags":[{"tag":"urn:li:tag:a"},{"tag":"urn:li:tag:b"}]}`,
			`[{"op":"add","path":"/tags/urn:li:tag:c","value":{"tag":"urn:li:tag:c"}},{"op":"add","path":"/tags/urn:li:tag:a","value":{"tag":"urn:li:tag:a","context":"again"}}]`,
			`{"tags":[{"tag":"urn:li:tag:a","context":"again"},{"tag":"urn:li:tag:b"},{"tag":"urn:li:tag:c"}]}`},
		{"removing a tag, and one that is not there", "globalTags",
			`{"tags":[{"tag":"urn:li:tag:a"},{"tag":"urn:li:tag:b"}]}`,
			`[{"op":"remove","path":"/tags/urn:li:tag:a","value":{}},{"op":"remove","path":"/tags/urn:li:tag:zz","value":{}}]`,
			`{"tags":[{"tag":"urn:li:tag:b"}]}`},
		{"a tag URN holding a slash, escaped as the builder escapes it", "globalTags", ``,
			`[{"op":"add","path":"/tags/urn:li:tag:a~1b","value":{"tag":"urn:li:tag:a/b"}}]`,
			`{"tags":[{"tag":"urn:li:tag:a/b"}]}`},
		{"a term added to none gets the default audit stamp", "glossaryTerms", ``,
			`[{"op":"add","path":"/terms/urn:li:glossaryTerm:t","value":{"urn":"urn:li:glossaryTerm:t"}}]`,
			`{"terms":[{"urn":"urn:li:glossaryTerm:t"}],"auditStamp":` + stamp + `}`},
		{"an owner is keyed by owner and type; removing the owner removes every type", "ownership",
			`{"owners":[{"owner":"urn:li:corpuser:ann","type":"DATAOWNER"},{"owner":"urn:li:corpuser:bob","type":"TECHNICAL_OWNER"}],"lastModified":{"time":1,"actor":"urn:li:corpuser:x"}}`,
			`[{"op":"add","path":"/owners/urn:li:corpuser:ann/TECHNICAL_OWNER","value":{"owner":"urn:li:corpuser:ann","type":"TECHNICAL_OWNER"}},{"op":"remove","path":"/owners/urn:li:corpuser:bob","value":"urn:li:corpuser:bob"}]`,
			`{"owners":[{"owner":"urn:li:corpuser:ann","type":"DATAOWNER"},{"owner":"urn:li:corpuser:ann","type":"TECHNICAL_OWNER"}],"lastModified":{"time":1,"actor":"urn:li:corpuser:x"}}`},
		{"an owner added to none starts from the default", "ownership", ``,
			`[{"op":"add","path":"/owners/urn:li:corpuser:ann/DATAOWNER","value":{"owner":"urn:li:corpuser:ann","type":"DATAOWNER"}}]`,
			`{"owners":[{"owner":"urn:li:corpuser:ann","type":"DATAOWNER"}],"lastModified":` + stamp + `}`},
		{"set_owners replaces the owners whole", "ownership",
			`{"owners":[{"owner":"urn:li:corpuser:ann","type":"DATAOWNER"}]}`,
			`[{"op":"add","path":"/owners","value":[{"owner":"urn:li:corpuser:bob","type":"DATAOWNER"}]}]`,
			`{"owners":[{"owner":"urn:li:corpuser:bob","type":"DATAOWNER"}]}`},
		{"custom properties are added and removed one by one; the description set", "datasetProperties",
			`{"customProperties":{"a":"1","b":"2"},"description":"old","tags":[]}`,
			`[{"op":"add","path":"/customProperties/c","value":"3"},{"op":"remove","path":"/customProperties/a","value":{}},{"op":"add","path":"/description","value":"new"}]`,
			`{"customProperties":{"b":"2","c":"3"},"description":"new","tags":[]}`},
		{"a custom property on properties not there starts from the default", "datasetProperties", ``,
			`[{"op":"add","path":"/customProperties/team","value":"data"}]`,
			`{"tags":[],"customProperties":{"team":"data"}}`},
		{"an upstream added and one removed", "upstreamLineage",
			`{"upstreams":[{"dataset":"urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)","type":"TRANSFORMED"}],"fineGrainedLineages":[]}`,
			`[{"op":"add","path":"/upstreams/urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)","value":{"dataset":"urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)","type":"COPY"}},{"op":"remove","path":"/upstreams/urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)","value":{}}]`,
			`{"upstreams":[{"dataset":"urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)","type":"COPY"}],"fineGrainedLineages":[]}`},
		{"a domain is a string keyed by itself", "domains", `{"domains":["urn:li:domain:a"]}`,
			`[{"op":"add","path":"/domains/urn:li:domain:b","value":"urn:li:domain:b"}]`,
			`{"domains":["urn:li:domain:a","urn:li:domain:b"]}`},
		{"a field's tag in the editable schema", "editableSchemaMetadata",
			`{"editableSchemaFieldInfo":[{"fieldPath":"id","globalTags":{"tags":[{"tag":"urn:li:tag:a"}]}}]}`,
			`[{"op":"add","path":"/editableSchemaFieldInfo/id/globalTags/tags/urn:li:tag:b","value":{"tag":"urn:li:tag:b"}}]`,
			`{"editableSchemaFieldInfo":[{"fieldPath":"id","globalTags":{"tags":[{"tag":"urn:li:tag:a"},{"tag":"urn:li:tag:b"}]}}]}`},
		{"the generic patch keys the arrays it names", "institutionalMemory",
			`{"elements":[{"url":"https://a","description":"a"}]}`,
			`{"arrayPrimaryKeys":{"elements":["url"]},"patch":[{"op":"add","path":"/elements/https:~1~1b","value":{"url":"https://b","description":"b"}}],"forceGenericPatch":false}`,
			`{"elements":[{"url":"https://a","description":"a"},{"url":"https://b","description":"b"}]}`},
		{"an aspect without a template is patched as plain JSON", "status", `{"removed":false}`,
			`[{"op":"replace","path":"/removed","value":true}]`, `{"removed":true}`},
		{"the operations of RFC 6902: test, copy, move", "datasetProperties",
			`{"customProperties":{"a":"1"},"tags":[]}`,
			`[{"op":"test","path":"/customProperties/a","value":"1"},{"op":"copy","from":"/customProperties/a","path":"/customProperties/b"},{"op":"move","from":"/customProperties/a","path":"/description"}]`,
			`{"customProperties":{"b":"1"},"tags":[],"description":"1"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := DecodePatch([]byte(c.patch))
			if err != nil {
				t.Fatal(err)
			}
			var current json.RawMessage
			if c.current != "" {
				current = json.RawMessage(c.current)
			}
			got, err := ApplyPatch(c.aspect, current, p, now, "urn:li:corpuser:ann")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				var a, b any
				_ = json.Unmarshal(got, &a)
				_ = json.Unmarshal([]byte(c.want), &b)
				if !reflect.DeepEqual(a, b) {
					t.Errorf("got  %s\nwant %s", got, c.want)
				} else {
					t.Errorf("the members are out of order:\ngot  %s\nwant %s", got, c.want)
				}
			}
		})
	}
}

// TestApplyPatchRefuses: what DataHub refuses is a bad request, with the
// stored value untouched.
func TestApplyPatchRefuses(t *testing.T) {
	now := time.Now()
	for name, c := range map[string]struct{ aspect, current, patch string }{
		"an operation DataHub does not know":   {"globalTags", ``, `[{"op":"merge","path":"/tags","value":{}}]`},
		"an add without a value":               {"globalTags", ``, `[{"op":"add","path":"/tags/x"}]`},
		"a path that does not start with /":    {"globalTags", ``, `[{"op":"add","path":"tags","value":{}}]`},
		"not a list of operations":             {"globalTags", ``, `{"op":"add"}`},
		"an object without patch":              {"globalTags", ``, `{"operations":[]}`},
		"not JSON":                             {"globalTags", ``, `[{`},
		"a failed test":                        {"status", `{"removed":false}`, `[{"op":"test","path":"/removed","value":true}]`},
		"a replace of what is not there":       {"status", `{"removed":false}`, `[{"op":"replace","path":"/other","value":true}]`},
		"no template and nothing stored":       {"status", ``, `[{"op":"add","path":"/removed","value":true}]`},
		"a path through a value":               {"datasetProperties", `{"description":"d"}`, `[{"op":"add","path":"/description/x/y","value":1}]`},
		"an index past the end of a list":      {"status", `{"l":[1]}`, `[{"op":"add","path":"/l/5","value":1}]`},
		"a move from what is not there":        {"status", `{"a":1}`, `[{"op":"move","from":"/b","path":"/c"}]`},
		"a copy without from":                  {"status", `{"a":1}`, `[{"op":"copy","path":"/c"}]`},
		"arrayPrimaryKeys that are not a list": {"status", `{"a":1}`, `{"arrayPrimaryKeys":{"a":"x"},"patch":[]}`},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := DecodePatch([]byte(c.patch))
			if err == nil {
				var current json.RawMessage
				if c.current != "" {
					current = json.RawMessage(c.current)
				}
				_, err = ApplyPatch(c.aspect, current, p, now, "urn:li:corpuser:ann")
			}
			if ErrorCodeOf(err) != EBADREQUEST {
				t.Errorf("got %v, want BAD_REQUEST", err)
			}
		})
	}
}

// FuzzPatch: a patch as a client sends it, over any aspect stored (or
// none), never panics, and either applies, leaving a JSON object, or is
// refused as a bad request.
func FuzzPatch(f *testing.F) {
	for _, c := range [][3]string{
		{"globalTags", `{"tags":[{"tag":"urn:li:tag:a"}]}`, `[{"op":"add","path":"/tags/urn:li:tag:b","value":{"tag":"urn:li:tag:b"}}]`},
		{"ownership", ``, `[{"op":"remove","path":"/owners/urn:li:corpuser:a"}]`},
		{"status", `{"removed":false,"l":[1,2]}`, `[{"op":"move","from":"/l/0","path":"/l/-"},{"op":"test","path":"/removed","value":false}]`},
		{"institutionalMemory", `{"elements":[]}`, `{"arrayPrimaryKeys":{"elements":["url"]},"patch":[{"op":"copy","from":"/elements","path":"/x"}]}`},
		{"editableSchemaMetadata", ``, `[{"op":"add","path":"/editableSchemaFieldInfo/id/globalTags/tags/t","value":{"tag":"t"}}]`},
		{"datasetProperties", `{"tags":"not a list"}`, `[{"op":"replace","path":"","value":[]}]`},
	} {
		f.Add(c[0], c[1], c[2])
	}
	f.Fuzz(func(t *testing.T, aspect, current, patch string) {
		p, err := DecodePatch([]byte(patch))
		if err != nil {
			if ErrorCodeOf(err) != EBADREQUEST {
				t.Fatalf("DecodePatch(%q): %v is not a bad request", patch, err)
			}
			return
		}
		var stored json.RawMessage
		if current != "" {
			var v map[string]any
			if json.Unmarshal([]byte(current), &v) != nil || v == nil {
				return // the store holds only JSON objects
			}
			stored = json.RawMessage(current)
		}
		out, err := ApplyPatch(aspect, stored, p, time.UnixMilli(0), "urn:li:corpuser:a")
		if err != nil {
			if ErrorCodeOf(err) != EBADREQUEST {
				t.Fatalf("ApplyPatch(%s, %q, %q): %v is not a bad request", aspect, current, patch, err)
			}
			return
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil || v == nil {
			t.Fatalf("ApplyPatch(%s, %q, %q) = %q, not a JSON object", aspect, current, patch, out)
		}
	})
}

// TestPatchOperationsAreBounded: a patch of more operations than
// MaxPatchOps is refused before any applies.
func TestPatchOperationsAreBounded(t *testing.T) {
	op := `{"op":"add","path":"/l/0","value":1}`
	many := "[" + strings.Repeat(op+",", MaxPatchOps) + op + "]"
	if _, err := DecodePatch([]byte(many)); ErrorCodeOf(err) != EBADREQUEST {
		t.Errorf("%d operations: %v, want BAD_REQUEST", MaxPatchOps+1, err)
	}
	enough := "[" + strings.Repeat(op+",", MaxPatchOps-1) + op + "]"
	p, err := DecodePatch([]byte(enough))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := ApplyPatch("status", json.RawMessage(`{"l":[]}`), p, time.Now(), "urn:li:corpuser:a"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("%d insertions at the head of a list took %s", MaxPatchOps, d)
	}
}
