package sdkclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// EmitMode.ASYNC_WAIT (emitter/rest_emitter.py): the write is sent for
// asynchronous ingestion through OpenAPI, and the emitter waits, asking
// after its trace, until nothing it wrote is pending.

// Backoff of _await_status (TRACE_INITIAL_BACKOFF, TRACE_BACKOFF_FACTOR,
// TRACE_MAX_BACKOFF, emitter/rest_emitter.py).
const (
	traceInitialBackoff = time.Second
	traceBackoffFactor  = 2
	traceMaxBackoff     = 300 * time.Second
)

// extractTraceData is extract_trace_data (emitter/response_helper.py): on
// a 2xx with a traceparent header, its trace id (the header's second part)
// and, from the JSON list the write answered, each URN with the aspects
// the answer holds (not null); nil when there is no header, the body is
// not a list, or the status is not 2xx.
func extractTraceData(r *response) (*TraceData, error) {
	if r.status < 200 || r.status >= 300 {
		return nil, nil
	}
	header := r.header.Get("traceparent")
	if strings.TrimSpace(header) == "" {
		return nil, nil
	}
	id := strings.TrimSpace(header)
	if strings.Contains(id, "-") {
		parts := strings.Split(id, "-")
		id = parts[1]
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &list); err != nil {
		return nil, nil // "JSON data is not a list" (or not JSON): no trace
	}
	d := &TraceData{TraceID: id, Aspects: map[string][]string{}}
	for _, item := range list {
		var urn string
		_ = json.Unmarshal(item["urn"], &urn)
		if urn == "" {
			continue
		}
		var names []string
		for k, v := range item {
			if k != "urn" && string(v) != "null" {
				names = append(names, k)
			}
		}
		if _, seen := d.Aspects[urn]; !seen {
			d.URNs = append(d.URNs, urn)
		}
		d.Aspects[urn] = names
	}
	return d, nil
}

// EmitMCPsAsyncWait is emit_mcps with emit_mode=ASYNC_WAIT on the OpenAPI
// path (_emit_openapi_mcps, then _await_status): the SDK traces only
// there, and only against a server of a version with API tracing (1.0.1
// and later); otherwise the emit returns at once, untraced. A write
// answered without a traceparent is not waited for (the SDK warns). It
// returns the traces it waited on.
func (c *Client) EmitMCPsAsyncWait(ctx context.Context, ms []MCP, timeout time.Duration) ([]TraceData, error) {
	const fn = "DataHubRestEmitter.emit_mcps"
	if c.OpenAPI == nil || !*c.OpenAPI || !atLeast(c.Version, openAPIRequirement["core"]) {
		return nil, &Error{Kind: "Warning", Func: fn, Reason: "ASYNC_WAIT requested but is only available when using OpenAPI, with a newer GMS version"}
	}
	var traces []TraceData
	for _, req := range OpenAPIWrites(ms, true) {
		r, err := c.send(ctx, req.Method, req.Path, req.Body, nil)
		if err != nil {
			return nil, err
		}
		if err := emitFailure(fn, r); err != nil {
			return nil, err
		}
		d, err := extractTraceData(r)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return nil, &Error{Kind: "APITracingWarning", Func: fn, Status: r.status, Reason: "No trace ID found in response headers. API tracing is not active"}
		}
		traces = append(traces, *d)
	}
	return traces, c.awaitStatus(ctx, traces, timeout)
}

// emitFailure is _emit_generic's raise on a status of 400 or more.
func emitFailure(fn string, r *response) error {
	if r.status < 400 {
		return nil
	}
	reason := "Unable to emit metadata to DataHub GMS"
	var info map[string]any
	if json.Unmarshal(r.body, &info) == nil {
		reason += fmt.Sprintf(": %v", info["message"])
	}
	return &Error{Kind: "OperationalError", Func: fn, Status: r.status, Reason: reason}
}

// awaitStatus is DataHubRestEmitter._await_status: for each trace, POST
// what is still awaited until nothing is; the answer's every urn and
// aspect must be one asked after, with "success" (false raises
// TraceValidationError) and primaryStorage.writeStatus and
// searchStorage.writeStatus (a missing one raises KeyError); an aspect is
// resolved when neither is PENDING. Past timeout, TraceTimeoutError.
func (c *Client) awaitStatus(ctx context.Context, traces []TraceData, timeout time.Duration) error {
	const fn = "DataHubRestEmitter._await_status"
	start := time.Now()
	for _, trace := range traces {
		backoff := traceInitialBackoff
		pending := map[string][]string{}
		for u, as := range trace.Aspects {
			pending[u] = append([]string(nil), as...)
		}
		order := append([]string(nil), trace.URNs...)
		for len(pending) > 0 {
			if time.Since(start) > timeout {
				return &Error{Kind: "TraceTimeoutError", Func: fn, Reason: fmt.Sprintf("Timeout waiting for async write completion after %s", timeout)}
			}
			body := TraceBody(TraceData{URNs: order, Aspects: pending})
			r, err := c.send(ctx, http.MethodPost, TracePath(trace.TraceID), body, nil)
			if err != nil {
				return err
			}
			if err := emitFailure(fn, r); err != nil {
				return err
			}
			var answer map[string]map[string]map[string]json.RawMessage
			if err := json.Unmarshal(r.body, &answer); err != nil {
				return &Error{Kind: "JSONDecodeError", Func: fn, Status: r.status, Reason: "the trace's answer is not an object of objects: " + excerpt(r.body)}
			}
			for urn, aspects := range answer {
				if _, ok := pending[urn]; !ok {
					return &Error{Kind: "KeyError", Func: fn, Reason: "the trace's answer names " + urn + ", which was not asked after"}
				}
				for name, st := range aspects {
					var success bool
					raw, ok := st["success"]
					if !ok || json.Unmarshal(raw, &success) != nil {
						return &Error{Kind: "KeyError", Func: fn, Reason: fmt.Sprintf("%s %s: no \"success\"", urn, name)}
					}
					if !success {
						return &Error{Kind: "TraceValidationError", Func: fn, Reason: fmt.Sprintf("Persistence failure for URN '%s' aspect '%s'. Status: %s", urn, name, excerpt(mustJSON(st)))}
					}
					primary, err := writeStatus(st, "primaryStorage")
					if err != nil {
						return &Error{Kind: "KeyError", Func: fn, Reason: fmt.Sprintf("%s %s: %v", urn, name, err)}
					}
					search, err := writeStatus(st, "searchStorage")
					if err != nil {
						return &Error{Kind: "KeyError", Func: fn, Reason: fmt.Sprintf("%s %s: %v", urn, name, err)}
					}
					if primary != "PENDING" && search != "PENDING" {
						i := indexOf(pending[urn], name)
						if i < 0 {
							return &Error{Kind: "ValueError", Func: fn, Reason: fmt.Sprintf("list.remove(x): %s is not awaited for %s", name, urn)}
						}
						pending[urn] = append(pending[urn][:i], pending[urn][i+1:]...)
					}
				}
				if len(pending[urn]) == 0 {
					delete(pending, urn)
				}
			}
			if len(pending) > 0 {
				backoff = min(backoff*traceBackoffFactor, traceMaxBackoff)
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(backoff):
				}
			}
		}
	}
	return nil
}

func writeStatus(st map[string]json.RawMessage, storage string) (string, error) {
	var s struct {
		WriteStatus *string `json:"writeStatus"`
	}
	raw, ok := st[storage]
	if !ok || json.Unmarshal(raw, &s) != nil || s.WriteStatus == nil {
		return "", fmt.Errorf("no %s.writeStatus", storage)
	}
	return *s.WriteStatus, nil
}

func indexOf(list []string, s string) int {
	for i, e := range list {
		if e == s {
			return i
		}
	}
	return -1
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
