package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/catalogspec/catalogspec/reference"
)

// The write gate (issue 29): the body of an entity write is held only for
// entities its caller may write. Before any of it is read, the caller must
// hold EDIT_ENTITY on some entity of the type the URL names (reference's
// MayWrite); a caller who holds it on every entity of the type is let
// through, and anyone else's body is read token by token, and each entity is
// authorized as soon as its URN is read (AuthorizeWrite), the request
// refused at the first the caller may not write, the rest of its body
// never read. Until an entity is authorized, at most maxHeldUnauthorized
// bytes of the body are read past the last authorized one: an entity's
// aspects may come before its URN (JSON objects have no order), but not a
// megabyte of them. What the gate lets through is the body, whole, for the
// handlers' own decoders, which it leaves as they are: a body the gate
// cannot follow (not JSON, or not of the shape) is read on only up to the
// same bound and handed to them, so that they say what is wrong with it.

// writeShape is the shape of a write's body.
type writeShape int

const (
	// openAPIWrite: [{"urn": ..., <aspect>: {"value": ...}}, ...].
	openAPIWrite writeShape = iota
	// restliProposal: {"proposal": {"entityUrn": ..., ...}, ...}.
	restliProposal
	// restliBatch: {"proposals": [{"entityUrn": ..., ...}, ...], ...}.
	restliBatch
	// restliSnapshot: {"entity": {"value": {"<snapshot class>": {"urn":
	// ..., "aspects": [...]}}}, ...}, the ingest action (emit_mce).
	restliSnapshot
)

// urnKey is the key naming an entity's URN in the shape.
func (s writeShape) urnKey() string {
	switch s {
	case openAPIWrite, restliSnapshot:
		return "urn"
	}
	return "entityUrn"
}

// maxHeldUnauthorized bounds what of a write's body is read past the last
// authorized entity before the next is authorized: small beside the
// 16,000,000 bytes a body may hold, and more than the fields an entity has
// before its URN (DataHub's SDK sends none: the URN comes first).
const maxHeldUnauthorized = 1 << 20

// What a write holds while it is decoded, checked and written, for the
// bound on bytes in flight: writeHoldFactor times its body, and
// writeAspectHold for each aspect (measured: a 15 MB body of 9,500 aspects
// holds some 65 MB live at its peak; BENCHMARKS.md). It is held before the
// body is read, its aspects reckoned at one per writeAspectEstimate bytes
// of it (at most maxWriteAspects), so that a write the bound cannot serve
// is refused before it holds anything, and one it admits holds no more
// later; a body of smaller aspects holds for the rest as the gate counts
// them.
const (
	writeHoldFactor     = 3
	writeAspectHold     = 2 << 10
	writeAspectEstimate = 512
)

// maxWriteAspects bounds the aspects of one write: what a write holds
// grows with them (a 16 MB body of 160,000 tiny aspects held 577 MB), and
// DataHub's SDK sends at most 200 at a time
// (DATAHUB_REST_EMITTER_BATCH_MAX_PAYLOAD_LENGTH).
const maxWriteAspects = 10_000

var (
	errHeldTooMuch = errors.New("held too much before authorization")
	errTooMany     = errors.New("too many aspects")
)

// readWrite returns the body of an entity write of the given shape to the
// entity type entityType ("" when the URL names none), read through the
// gate, or answers itself and returns false.
func (s *Server) readWrite(w http.ResponseWriter, r *http.Request, shape writeShape, entityType string) ([]byte, bool) {
	fail := func(err error) {
		if errors.Is(err, reference.ErrBusy) && r.Header.Get("Expect") == "" {
			// A client that is to try again reads the 503 only once it
			// has sent its body: take it, keeping none of it.
			_, _ = io.Copy(io.Discard, r.Body)
		} else {
			refuseBody(w, r)
		}
		if shape == openAPIWrite {
			s.writeOpenAPIError(w, r, err)
		} else {
			s.writeError(w, r, err)
		}
	}
	ctx := r.Context()
	every, err := s.svc.MayWrite(ctx, entityType)
	if err != nil {
		fail(err)
		return nil, false
	}
	size := r.ContentLength
	if size < 0 || size > ingestBody {
		size = ingestBody
	}
	memory := reference.MemoryFromContext(ctx)
	reckoned := min(size/writeAspectEstimate, maxWriteAspects)
	if err := memory.Hold(size*writeHoldFactor + reckoned*writeAspectHold); err != nil {
		fail(err)
		return nil, false
	}
	// The URL and the caller may say enough (every): every entity the
	// body can name is theirs to write, and the gate only counts them.
	body := &gatedBody{r: r.Body, limit: -1, trusted: every}
	if r.ContentLength > 0 {
		body.buf.Grow(int(size))
	}
	g := &gate{dec: json.NewDecoder(body), body: body, shape: shape, memory: memory, reckoned: int(reckoned),
		authorize: func(urn string) error {
			if every {
				return nil
			}
			return s.svc.AuthorizeWrite(ctx, urn)
		}}
	err = g.walk()
	var refusal refused
	switch {
	case errors.As(err, &refusal):
		fail(refusal.err)
		return nil, false
	case errors.Is(err, errHeldTooMuch), errors.Is(err, errTooMany):
		message := heldMessage(shape)
		if errors.Is(err, errTooMany) {
			message = fmt.Sprintf("a write holds at most %d aspects (DataHub's SDK sends 200 at a time): send them in smaller batches; nothing was written", maxWriteAspects)
		}
		refuseBody(w, r)
		if shape == openAPIWrite {
			openAPIProblem(w, r, http.StatusRequestEntityTooLarge, message)
		} else {
			writeProblem(w, r, http.StatusRequestEntityTooLarge, message)
		}
		return nil, false
	case err != nil && !errors.Is(err, errNotFollowed):
		s.bodyReadFailed(w, r, shape, err)
		return nil, false
	case err != nil:
		// Not a body the gate can follow: read on, within the bound, and
		// let the decoder say what is wrong. Cut short, it is not JSON.
		body.capFrom(body.n)
		if _, err := io.Copy(io.Discard, body); err != nil && !errors.Is(err, errHeldTooMuch) {
			s.bodyReadFailed(w, r, shape, err)
			return nil, false
		} else if err != nil {
			refuseBody(w, r)
		}
	}
	return body.buf.Bytes(), true
}

// heldMessage says why a write was refused for what came before an
// entity's URN.
func heldMessage(shape writeShape) string {
	return fmt.Sprintf("at most %d bytes of a write's body are read before the entity they belong to is authorized: send each entity's %q before its aspects, as DataHub's SDK does; nothing was written", maxHeldUnauthorized, shape.urnKey())
}

// bodyReadFailed answers a body that could not be read: 413 past the
// body's bound, 400 otherwise, as readBody does.
func (s *Server) bodyReadFailed(w http.ResponseWriter, r *http.Request, shape writeShape, err error) {
	status, message := http.StatusBadRequest, "request body could not be read"
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		status, message = http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is larger than %d bytes", tooBig.Limit)
	}
	refuseBody(w, r)
	if shape == openAPIWrite {
		openAPIProblem(w, r, status, message)
	} else {
		writeProblem(w, r, status, message)
	}
}

// gatedBody keeps what it reads of a request body, and, while limit is not
// negative, reads nothing past it.
type gatedBody struct {
	r       io.Reader
	buf     bytes.Buffer
	n       int64 // bytes read
	limit   int64 // -1: none
	err     error // the body's own error, once it failed
	trusted bool  // every entity is the caller's: no limit
}

func (b *gatedBody) Read(p []byte) (int, error) {
	if b.limit >= 0 {
		left := b.limit - b.n
		if left <= 0 {
			return 0, errHeldTooMuch
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := b.r.Read(p)
	b.buf.Write(p[:n])
	b.n += int64(n)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// capFrom lets at most maxHeldUnauthorized more bytes be read from
// position at (what the decoder has consumed) on.
func (b *gatedBody) capFrom(at int64) {
	if !b.trusted {
		b.limit = at + maxHeldUnauthorized
	}
}

// uncap lets the rest of an authorized entity be read.
func (b *gatedBody) uncap() { b.limit = -1 }

// errNotFollowed is a body the gate cannot follow: its decoder says why.
var errNotFollowed = errors.New("not a body of the shape")

// refused is an entity the caller may not write (or whose URN is not one).
type refused struct{ err error }

func (r refused) Error() string { return r.err.Error() }

// gate walks a write's body token by token.
type gate struct {
	dec       *json.Decoder
	body      *gatedBody
	shape     writeShape
	authorize func(urn string) error
	memory    *reference.Memory // what the request holds
	aspects   int               // counted so far
	reckoned  int               // aspects already held for
}

// aspect counts one more aspect of the write, against maxWriteAspects and
// what the request may hold.
func (g *gate) aspect() error {
	if g.aspects++; g.aspects > maxWriteAspects {
		return errTooMany
	}
	if g.aspects > g.reckoned && (g.aspects-g.reckoned)%256 == 0 {
		if err := g.memory.Hold(256 * writeAspectHold); err != nil {
			return refused{err}
		}
	}
	return nil
}

// skip takes a JSON value without keeping it.
type skip struct{}

func (*skip) UnmarshalJSON([]byte) error { return nil }

// fault sorts an error of the decoder: the body's own (the client's
// connection, the body's bound), the gate's bound, or JSON the gate does
// not follow.
func (g *gate) fault(err error) error {
	switch {
	case g.body.err != nil:
		return g.body.err
	case errors.Is(err, errHeldTooMuch):
		return errHeldTooMuch
	}
	return errNotFollowed
}

func (g *gate) delim(want json.Delim) error {
	t, err := g.dec.Token()
	if err != nil {
		return g.fault(err)
	}
	if t != want {
		return errNotFollowed
	}
	return nil
}

// walk follows the whole body, or returns why it stopped.
func (g *gate) walk() error {
	g.body.capFrom(0)
	var err error
	switch g.shape {
	case openAPIWrite:
		err = g.list()
	default:
		err = g.envelope()
	}
	if err != nil {
		return err
	}
	g.body.capFrom(g.dec.InputOffset())
	if _, err := g.dec.Token(); err != io.EOF {
		if err == nil {
			return errNotFollowed // something after the body's value
		}
		return g.fault(err)
	}
	return nil
}

// envelope follows {"proposal": {...}} or {"proposals": [...]}, whose
// other keys are skipped.
func (g *gate) envelope() error {
	if err := g.delim('{'); err != nil {
		return err
	}
	for g.dec.More() {
		t, err := g.dec.Token()
		if err != nil {
			return g.fault(err)
		}
		// encoding/json matches a struct's fields in any case.
		switch key, _ := t.(string); {
		case g.shape == restliProposal && strings.EqualFold(key, "proposal"):
			err = g.entity()
		case g.shape == restliBatch && strings.EqualFold(key, "proposals"):
			err = g.list()
		case g.shape == restliSnapshot && strings.EqualFold(key, "entity"):
			err = g.snapshot()
		default:
			err = g.skipValue()
		}
		if err != nil {
			return err
		}
		g.body.capFrom(g.dec.InputOffset())
	}
	return g.delim('}')
}

// snapshot follows {"value": {"<snapshot class>": {...}}}: each class's
// object is an entity.
func (g *gate) snapshot() error {
	if err := g.delim('{'); err != nil {
		return err
	}
	for g.dec.More() {
		t, err := g.dec.Token()
		if err != nil {
			return g.fault(err)
		}
		if key, _ := t.(string); !strings.EqualFold(key, "value") {
			if err := g.skipValue(); err != nil {
				return err
			}
			continue
		}
		if err := g.delim('{'); err != nil {
			return err
		}
		for g.dec.More() {
			if _, err := g.dec.Token(); err != nil { // the snapshot's class
				return g.fault(err)
			}
			if err := g.entity(); err != nil {
				return err
			}
		}
		if err := g.delim('}'); err != nil {
			return err
		}
	}
	return g.delim('}')
}

// list follows a JSON list of entities (null: none).
func (g *gate) list() error {
	if null, err := g.open('['); null || err != nil {
		return err
	}
	for g.dec.More() {
		if err := g.entity(); err != nil {
			return err
		}
	}
	return g.delim(']')
}

// entity follows one entity (an OpenAPI entity, a Rest.li proposal),
// authorizing it when its URN is read. One without a URN (or null) is let
// be: it names nothing to authorize, and the decoders or the service
// refuse it.
func (g *gate) entity() error {
	g.body.capFrom(g.dec.InputOffset())
	if null, err := g.open('{'); null || err != nil {
		return err
	}
	if g.shape == restliProposal || g.shape == restliBatch {
		if err := g.aspect(); err != nil { // a proposal is one aspect
			return err
		}
	}
	authorized := false
	for g.dec.More() {
		t, err := g.dec.Token()
		if err != nil {
			return g.fault(err)
		}
		if key, _ := t.(string); !g.isURNKey(key) {
			switch {
			case g.shape == openAPIWrite:
				if err := g.aspect(); err != nil {
					return err
				}
			case g.shape == restliSnapshot && strings.EqualFold(key, "aspects"):
				if err := g.snapshotAspects(); err != nil {
					return err
				}
				continue
			}
			if err := g.skipValue(); err != nil {
				return err
			}
			continue
		}
		var urn string
		if err := g.dec.Decode(&urn); err != nil {
			return g.fault(err)
		}
		if err := g.authorize(urn); err != nil {
			return refused{err}
		}
		authorized = true
		g.body.uncap()
	}
	if err := g.delim('}'); err != nil {
		return err
	}
	if authorized {
		g.body.capFrom(g.dec.InputOffset())
	}
	return nil
}

// open takes the delimiter that opens the next value, or a null in its
// place (null says so).
func (g *gate) open(want json.Delim) (null bool, err error) {
	t, err := g.dec.Token()
	if err != nil {
		return false, g.fault(err)
	}
	if t == nil {
		return true, nil
	}
	if t != want {
		return false, errNotFollowed
	}
	return false, nil
}

// snapshotAspects follows a snapshot's list of aspects, counting them.
func (g *gate) snapshotAspects() error {
	if err := g.delim('['); err != nil {
		return err
	}
	for g.dec.More() {
		if err := g.aspect(); err != nil {
			return err
		}
		if err := g.skipValue(); err != nil {
			return err
		}
	}
	return g.delim(']')
}

// isURNKey says whether key names the entity's URN as the handlers'
// decoders read it: "urn" exactly in an OpenAPI entity, in any case in a
// snapshot, "entityUrn" in any case in a Rest.li proposal (encoding/json
// matches a struct's fields so).
func (g *gate) isURNKey(key string) bool {
	if g.shape == openAPIWrite {
		return key == "urn"
	}
	return strings.EqualFold(key, g.shape.urnKey())
}

func (g *gate) skipValue() error {
	if err := g.dec.Decode(&skip{}); err != nil {
		return g.fault(err)
	}
	return nil
}
