package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/catalogspec/catalogspec/reference"
)

// walkGate runs the gate over body, letting through the URNs of allowed
// (all when allowed is nil); it returns the gate's verdict, the URNs it
// authorized, and what of the body it read.
func walkGate(shape writeShape, body string, allowed []string) (error, []string, string) {
	var seen []string
	b := &gatedBody{r: strings.NewReader(body), limit: -1}
	g := &gate{dec: json.NewDecoder(b), body: b, shape: shape, authorize: func(urn string) error {
		seen = append(seen, urn)
		if allowed != nil && !slices.Contains(allowed, urn) {
			return reference.ErrUnauthorized
		}
		return nil
	}}
	err := g.walk()
	return err, seen, b.buf.String()
}

// TestWriteGate: each entity of a write is authorized as its URN is read,
// the first one refused stopping the read; what comes before a URN is
// read only up to maxHeldUnauthorized; a write holds at most
// maxWriteAspects aspects; a body the gate cannot follow is left to the
// decoders, and an entity that names none nothing to authorize.
func TestWriteGate(t *testing.T) {
	rest := strings.Repeat(`, {"urn": "c", "status": {"value": {}}}`, 5_000) + "]"
	body := `[{"urn": "a", "status": {"value": {}}}, {"status": {"value": {}}, "urn": "b"}` + rest
	err, seen, read := walkGate(openAPIWrite, body, []string{"a"})
	if !errors.As(err, new(refused)) || !slices.Equal(seen, []string{"a", "b"}) || len(read) > len(body)-len(rest)+64<<10 {
		t.Errorf("a list whose second entity is not the caller's: %v after %q, having read %d of %d bytes", err, seen, len(read), len(body))
	}
	if err, seen, read := walkGate(openAPIWrite, body, nil); err != nil || len(seen) != 5_002 || read != body {
		t.Errorf("the same list, all the caller's: %v, %d authorized, read whole %v", err, len(seen), read == body)
	}

	many := `[{"urn": "a", "status": {"value": {}}` + strings.Repeat(`, "s": {}`, maxWriteAspects-1) + `}]`
	if err, _, _ := walkGate(openAPIWrite, many, nil); err != nil {
		t.Errorf("%d aspects: %v", maxWriteAspects, err)
	}
	if err, _, _ := walkGate(openAPIWrite, many[:len(many)-2]+`, "t": {}}]`, nil); !errors.Is(err, errTooMany) {
		t.Errorf("%d aspects: %v; want refused", maxWriteAspects+1, err)
	}
	proposals := `{"proposals": [{"entityUrn": "a"}` + strings.Repeat(`, {"entityUrn": "a"}`, maxWriteAspects) + `]}`
	if err, _, _ := walkGate(restliBatch, proposals, nil); !errors.Is(err, errTooMany) {
		t.Errorf("%d proposals: %v; want refused", maxWriteAspects+1, err)
	}

	batch := `{"async": "false", "proposals": [{"entityType": "dataset", "EntityURN": "x", "aspect": {"value": "{}"}}, {"entityUrn": "y"}]}`
	if err, seen, _ := walkGate(restliBatch, batch, nil); err != nil || !slices.Equal(seen, []string{"x", "y"}) {
		t.Errorf("a Rest.li batch: %v, authorized %q; want x (its key in any case, as encoding/json reads it) and y", err, seen)
	}
	snapshot := `{"entity": {"value": {"com.linkedin.metadata.snapshot.DatasetSnapshot": {"aspects": [{"a": {}}, {"b": {}}], "urn": "s"}}}, "systemMetadata": {}}`
	if err, seen, _ := walkGate(restliSnapshot, snapshot, nil); err != nil || !slices.Equal(seen, []string{"s"}) {
		t.Errorf("a snapshot: %v, authorized %q", err, seen)
	}
	if err, _, _ := walkGate(restliSnapshot, snapshot, []string{"t"}); !errors.As(err, new(refused)) {
		t.Errorf("a snapshot of an entity not the caller's: %v", err)
	}
	single := `{"proposal": {"entityUrn": "x"}, "proposal": {"entityUrn": "y"}}`
	if err, seen, _ := walkGate(restliProposal, single, []string{"x"}); !errors.As(err, new(refused)) || !slices.Equal(seen, []string{"x", "y"}) {
		t.Errorf("a proposal given twice: %v, %q; want the second refused too (the decoder keeps the last)", err, seen)
	}

	big := `[{"datasetProperties": {"value": {"description": "` + strings.Repeat("d", 2*maxHeldUnauthorized) + `"}}, "urn": "a"}]`
	if err, _, read := walkGate(openAPIWrite, big, nil); !errors.Is(err, errHeldTooMuch) || len(read) > maxHeldUnauthorized+1 {
		t.Errorf("2 MiB before the urn: %v having read %d bytes; want refused after at most %d", err, len(read), maxHeldUnauthorized)
	}
	junk := `{"junk": "` + strings.Repeat("j", 2*maxHeldUnauthorized) + `", "proposals": []}`
	if err, _, _ := walkGate(restliBatch, junk, nil); !errors.Is(err, errHeldTooMuch) {
		t.Errorf("2 MiB before any proposal: %v", err)
	}
	small := `[{"status": {"value": {}}, "urn": "a"}]`
	if err, seen, _ := walkGate(openAPIWrite, small, nil); err != nil || !slices.Equal(seen, []string{"a"}) {
		t.Errorf("a small aspect before the urn: %v, %q", err, seen)
	}

	for _, c := range []struct {
		shape writeShape
		body  string
	}{
		{openAPIWrite, `{"urn": "u"}`}, {openAPIWrite, `[{"urn": 7}]`}, {openAPIWrite, `["text"]`},
		{openAPIWrite, `[{"urn": "u"}] x`}, {openAPIWrite, `[{"urn": "u"`},
		{restliBatch, `{"proposals": {}}`}, {restliProposal, `nope`},
	} {
		if err, _, _ := walkGate(c.shape, c.body, nil); !errors.Is(err, errNotFollowed) {
			t.Errorf("%s: %v; want it left to the decoder", c.body, err)
		}
	}
	// Entities that name none: nothing to authorize, and the decoders or
	// the service refuse them; what follows is followed.
	for _, c := range []struct {
		shape writeShape
		body  string
	}{
		{openAPIWrite, `[{"a": {"value": {}}}, null, {"urn": "x"}]`}, {restliProposal, `{"proposal": null, "proposal": {"entityUrn": "x"}}`},
		{restliBatch, `{"proposals": [{"aspect": {}}, {"entityUrn": "x"}]}`}, {restliBatch, `{"proposals": null}`},
	} {
		if err, seen, _ := walkGate(c.shape, c.body, []string{}); !errors.As(err, new(refused)) && strings.Contains(c.body, `"x"`) {
			t.Errorf("%s: %v, authorized %q; want x refused", c.body, err, seen)
		}
	}
}

// TestWriteGateReadsNoFurtherOnABodyError: the body's own failure (its
// bound, a client gone) is reported as it is.
func TestWriteGateReadsNoFurtherOnABodyError(t *testing.T) {
	failing := &gatedBody{r: io.MultiReader(strings.NewReader(`[{"urn": "a", "x": "`), errReader{}), limit: -1}
	g := &gate{dec: json.NewDecoder(failing), body: failing, shape: openAPIWrite, authorize: func(string) error { return nil }}
	if err := g.walk(); !errors.Is(err, errBroken) {
		t.Errorf("a body that fails: %v", err)
	}
}

var errBroken = errors.New("broken")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBroken }

// FuzzWriteGate: whatever the body, the gate lets nothing be written that
// it did not authorize. A body it follows to the end is one whose every
// entity the decoders find it authorized; one it cannot follow is refused
// by the decoders, or names no entity the service would write.
func FuzzWriteGate(f *testing.F) {
	for _, s := range []string{
		`[{"urn": "a", "status": {"value": {}}}]`, `[{"status": {"value": {}}, "urn": "a", "urn": "b"}]`,
		`{"proposal": {"entityUrn": "a", "aspect": {"value": "{}"}}}`, `{"proposals": [{"ENTITYURN": "a"}, {"entityUrn": null}]}`,
		`[{"urn": "a"}] [{"urn": "b"}]`, `{"proposal": {"entityUrn": "a"}, "proposal": {"entityUrn": "b"}}`, `[`, ``,
	} {
		f.Add(byte(0), []byte(s))
		f.Add(byte(1), []byte(s))
		f.Add(byte(2), []byte(s))
		f.Add(byte(3), []byte(s))
	}
	for _, s := range []string{
		`{"entity": {"value": {"com.linkedin.metadata.snapshot.DatasetSnapshot": {"urn": "a", "aspects": [{"x": {}}]}}}}`,
		`{"entity": {"value": {"A": {"URN": "a"}, "B": {"urn": "b"}}}, "Entity": {"Value": {"C": {"Urn": "c"}}}}`,
	} {
		f.Add(byte(3), []byte(s))
	}
	f.Fuzz(func(t *testing.T, which byte, body []byte) {
		shape := writeShape(which % 4)
		err, seen, read := walkGate(shape, string(body), nil)
		if errors.As(err, new(refused)) || errors.Is(err, errHeldTooMuch) {
			return
		}
		if err != nil && !errors.Is(err, errNotFollowed) {
			t.Fatalf("an error of its own: %v", err)
		}
		if err == nil && read != string(body) {
			t.Fatalf("followed to the end, it read %d of %d bytes", len(read), len(body))
		}
		var urns []string
		switch shape {
		case openAPIWrite:
			items, derr := decodeOpenAPIItems(body, true)
			if derr != nil {
				return
			}
			for _, it := range items {
				urns = append(urns, it.urn)
			}
		case restliProposal:
			p, derr := decodeProposal(body)
			if derr != nil {
				return
			}
			urns = append(urns, p.EntityURN)
		case restliSnapshot:
			_, urn, _, derr := decodeSnapshot(body)
			if derr != nil {
				return
			}
			urns = append(urns, urn)
		case restliBatch:
			var req struct {
				Proposals *[]reference.Proposal `json:"proposals"`
			}
			if json.Unmarshal(body, &req) != nil || req.Proposals == nil {
				return
			}
			for _, p := range *req.Proposals {
				urns = append(urns, p.EntityURN)
			}
		}
		for _, u := range urns {
			// No URN at all is never written: the service refuses it.
			if !slices.Contains(seen, u) && u != "" {
				t.Fatalf("the decoder writes %q, which the gate did not authorize (gate: %v)", u, err)
			}
		}
	})
}
