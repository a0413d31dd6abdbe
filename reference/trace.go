package reference

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Traces of writes. DataHub answers every request of its OpenAPI servlet
// with a W3C traceparent header (TracingInterceptor) whose trace id starts
// with the time in microseconds (TraceIdGenerator), records it in the
// system metadata of each aspect the request writes, and answers POST
// /openapi/v1/trace/write/{traceId} with what became of each aspect
// (TraceController, TraceServiceImpl): DataHub's SDK, emitting with
// EmitMode.ASYNC_WAIT, waits on it until no aspect is PENDING. The
// reference writes at once, so an aspect a trace names is either the one
// that write made (ACTIVE_STATE), or one written since (HISTORIC_STATE),
// never pending.

type traceKey struct{}

// WithTrace returns ctx carrying the trace id of the request, which the
// writes made under it record with each aspect.
func WithTrace(ctx context.Context, traceID string) context.Context {
	return context.WithValue(ctx, traceKey{}, traceID)
}

// TraceFrom returns the trace id ctx carries, "" when none.
func TraceFrom(ctx context.Context) string {
	id, _ := ctx.Value(traceKey{}).(string)
	return id
}

// NewTraceID returns a new trace id at the service's time.
func (s *Service) NewTraceID() string { return NewTraceID(s.cfg.Now()) }

// NewTraceID returns a trace id as DataHub's TraceIdGenerator makes them:
// 16 hex digits of the time in microseconds, then 16 random ones.
func NewTraceID(now time.Time) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%016x%s", now.UnixMicro(), hex.EncodeToString(b[:]))
}

// Traceparent is the W3C traceparent header of a trace: version 00, the
// trace id, a random span id, sampled.
func Traceparent(traceID string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "00-" + traceID + "-" + hex.EncodeToString(b[:]) + "-01"
}

// traceIDShape is a trace id: 32 hex digits, not all zero (W3C).
var traceIDShape = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TraceID reads a trace id as DataHub's TraceController does: a whole
// traceparent (its second part) or the 32 hex digits alone.
func TraceID(s string) (string, error) {
	if parts := strings.Split(s, "-"); len(parts) >= 2 {
		s = parts[1]
	}
	if !traceIDShape.MatchString(s) || s == "00000000000000000000000000000000" {
		return "", Errorf(EBADREQUEST, "%s is not a trace id: 32 lowercase hex digits, or a traceparent header holding them", Excerpt(s))
	}
	return s, nil
}

// Write statuses, DataHub's TraceWriteStatus.
const (
	TraceActive   = "ACTIVE_STATE"   // the write is the value stored
	TraceHistoric = "HISTORIC_STATE" // the write was stored, and has been replaced since
	TraceNoOp     = "NO_OP"          // nothing was to be written there (a timeseries value has no primary storage)
	TraceError    = "ERROR"          // the write is not there
)

// TraceStatus is what became of one aspect of a traced write, as DataHub's
// TraceStatus says it: in primary storage (the aspects) and in search
// storage (for the reference, the same database).
type TraceStatus struct {
	Success bool   `json:"success"`
	Primary string `json:"-"`
	Search  string `json:"-"`
}

// MarshalJSON writes DataHub's shape: {"success", "primaryStorage":
// {"writeStatus"}, "searchStorage": {"writeStatus"}}.
func (t TraceStatus) MarshalJSON() ([]byte, error) {
	type storage struct {
		WriteStatus string `json:"writeStatus"`
	}
	return json.Marshal(struct {
		Success bool    `json:"success"`
		Primary storage `json:"primaryStorage"`
		Search  storage `json:"searchStorage"`
	}{t.Success, storage{t.Primary}, storage{t.Search}})
}

// maxTraced bounds how many aspects one trace request asks after.
const maxTraced = 1000

// TraceWrites says what became of the aspects of each entity that the
// write traced by traceID made, as DataHub's POST
// /openapi/v1/trace/write/{traceId} does: the caller needs a read
// privilege on every entity named (or gets nothing). onlyErrors leaves out
// the aspects that were written.
func (s *Service) TraceWrites(ctx context.Context, rawTraceID string, aspects map[string][]string, onlyErrors bool) (map[string]map[string]TraceStatus, error) {
	traceID, err := TraceID(rawTraceID)
	if err != nil {
		return nil, err
	}
	urns := make([]URN, 0, len(aspects))
	n := 0
	for raw, names := range aspects {
		urn, err := ParseURN(raw)
		if err != nil {
			return nil, err
		}
		if err := checkAspectNames(names); err != nil {
			return nil, err
		}
		if n += len(names); n > maxTraced {
			return nil, Errorf(EBADREQUEST, "a trace request may name at most %d aspects", maxTraced)
		}
		urns = append(urns, urn)
	}
	slices.SortFunc(urns, func(a, b URN) int { return strings.Compare(a.String(), b.String()) })
	for _, urn := range urns {
		if err := s.requireRead(ctx, urn); err != nil {
			return nil, err
		}
	}
	out := make(map[string]map[string]TraceStatus, len(urns))
	for _, urn := range urns {
		stored, err := s.store.Aspects(Metered(ctx), urn)
		if err != nil {
			return nil, err
		}
		statuses := map[string]TraceStatus{}
		for _, name := range aspects[urn.String()] {
			st, err := s.traceStatus(ctx, urn, name, traceID, stored)
			if err != nil {
				return nil, err
			}
			if !onlyErrors || !st.Success {
				statuses[name] = st
			}
		}
		if len(statuses) > 0 {
			out[urn.String()] = statuses
		}
	}
	return out, nil
}

// traceStatus is what became of one aspect of the traced write.
func (s *Service) traceStatus(ctx context.Context, urn URN, name, traceID string, stored []Aspect) (TraceStatus, error) {
	if isTimeseries(name) {
		found, err := s.store.TimeseriesValues(ctx, TimeseriesQuery{URN: urn, Aspect: name, TraceID: traceID, Limit: 1})
		if err != nil {
			return TraceStatus{}, err
		}
		if len(found) == 0 {
			return TraceStatus{Primary: TraceNoOp, Search: TraceError}, nil
		}
		return TraceStatus{Success: true, Primary: TraceNoOp, Search: TraceActive}, nil
	}
	i := slices.IndexFunc(stored, func(a Aspect) bool { return a.Name == name })
	if i < 0 || hiddenAspects[name] {
		return TraceStatus{Primary: TraceError, Search: TraceError}, nil
	}
	a := stored[i]
	if a.TraceID == traceID {
		return TraceStatus{Success: true, Primary: TraceActive, Search: TraceActive}, nil
	}
	// Replaced since: the aspect holds a later write, made after the
	// traced one (whose time the trace id holds).
	if at, ok := traceTime(traceID); ok && !a.CreatedAt.Before(at) {
		return TraceStatus{Success: true, Primary: TraceHistoric, Search: TraceHistoric}, nil
	}
	return TraceStatus{Primary: TraceError, Search: TraceError}, nil
}

// traceTime is the time a trace id made by NewTraceID holds.
func traceTime(traceID string) (time.Time, bool) {
	var micros int64
	if _, err := fmt.Sscanf(traceID[:16], "%016x", &micros); err != nil || micros <= 0 {
		return time.Time{}, false
	}
	return time.UnixMicro(micros), true
}
