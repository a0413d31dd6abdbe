package sdkclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The SDK's reads of timeseries aspects, the CLI's `datahub get`, and
// emit_mce.

// GetTimeseriesValues is DataHubGraph.get_timeseries_values: the answer's
// value.values, each an object whose aspect.value is the value as JSON
// text (a value without one raises GraphError), read with from_obj. It
// returns them in the order the server gives, which the SDK takes as is.
func (c *Client) GetTimeseriesValues(ctx context.Context, urn string, t AspectType, filter Obj, limit int) ([]map[string]any, error) {
	const fn = "DataHubGraph.get_timeseries_values"
	resp, err := c.postGeneric(ctx, fn, TimeseriesPath(), TimeseriesValuesBody(urn, t.Name, filter, limit))
	if err != nil {
		return nil, err
	}
	value, err := getObject(fn, "the answer", resp, "value")
	if err != nil {
		return nil, err
	}
	values, _ := value["values"].([]any)
	if raw, ok := value["values"]; ok && raw != nil && values == nil {
		return nil, &Error{Kind: "TypeError", Func: fn, Reason: fmt.Sprintf("value.values is %s, not a list", kindOf(raw))}
	}
	var out []map[string]any
	for i, e := range values {
		env, err := object(fn, fmt.Sprintf("value.values[%d]", i), e)
		if err != nil {
			return nil, err
		}
		aspect, err := getObject(fn, fmt.Sprintf("value.values[%d]", i), env, "aspect")
		if err != nil {
			return nil, err
		}
		text, _ := aspect["value"].(string)
		if text == "" {
			return nil, &Error{Kind: "GraphError", Func: fn, Reason: fmt.Sprintf("Failed to find %s in response %v", t.FullName, aspect["value"])}
		}
		var decoded any
		if err := json.Unmarshal([]byte(text), &decoded); err != nil {
			return nil, &Error{Kind: "JSONDecodeError", Func: fn, Reason: "a value's aspect.value is not JSON text"}
		}
		m, err := fromObj(fn, t, decoded)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// GetLatestTimeseriesValue is DataHubGraph.get_latest_timeseries_value:
// get_timeseries_values with limit 1 and a filter of each criterion
// (EQUAL); none is None (nil, false); more than one fails its assertion.
// Stateful ingestion reads its checkpoint so
// (DatahubIngestionCheckpointingProvider.get_latest_checkpoint).
func (c *Client) GetLatestTimeseriesValue(ctx context.Context, urn string, t AspectType, criteria Obj) (map[string]any, bool, error) {
	values, err := c.GetTimeseriesValues(ctx, urn, t, LatestFilter(criteria), 1)
	if err != nil {
		return nil, false, err
	}
	switch len(values) {
	case 0:
		return nil, false, nil
	case 1:
		return values[0], true, nil
	}
	return nil, false, &Error{Kind: "AssertionError", Func: "DataHubGraph.get_latest_timeseries_value", Reason: fmt.Sprintf("%d values for a limit of 1", len(values))}
}

// CLIGet is `datahub get --urn <urn> -a <aspect> ...` (cli/get_cli.py,
// cli_utils.get_aspects_for_entity): with aspects named, exists() first
// ("urn ... not found" otherwise); then GET /entitiesV2/<urn> for the
// versioned ones (all of them when none is named, raise_for_status), and
// for each timeseries aspect (TIMESERIES_ASPECT_MAP) its latest value
// (latestValue: any failure ignored, as the CLI ignores it). It returns
// what the CLI prints: each aspect named by name with its value.
func (c *Client) CLIGet(ctx context.Context, urn string, aspects []string) (map[string]any, error) {
	const fn = "datahub get"
	if len(aspects) > 0 {
		ok, err := c.Exists(ctx, urn)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &Error{Kind: "ClickException", Func: fn, Reason: fmt.Sprintf("urn %s not found", urn)}
		}
	}
	var versioned, series []string
	for _, a := range aspects {
		if t, ok := aspectNameMap[a]; ok && t.Timeseries {
			series = append(series, a)
		} else {
			versioned = append(versioned, a)
		}
	}
	// get_entity: "?aspects=List(...)" only when the list is not empty.
	path := "/entitiesV2/" + URLEncode(urn)
	if len(versioned) > 0 {
		path += "?aspects=List(" + strings.Join(versioned, ",") + ")"
	}
	r, err := c.send(ctx, http.MethodGet, path, nil, nil)
	if err != nil {
		return nil, err
	}
	if err := raiseForStatus("cli_utils.get_entity", r); err != nil {
		return nil, err
	}
	v, err := decodeJSON("cli_utils.get_entity", r)
	if err != nil {
		return nil, err
	}
	resp, err := object(fn, "the answer", v)
	if err != nil {
		return nil, err
	}
	raw, ok := resp["aspects"]
	if !ok {
		return nil, &Error{Kind: "KeyError", Func: fn, Reason: `the answer has no "aspects"`}
	}
	list, err := object(fn, "aspects", raw)
	if err != nil {
		return nil, err
	}
	for _, a := range series {
		// get_latest_timeseries_aspect_values: any failure is {}.
		r, err := c.send(ctx, http.MethodPost, TimeseriesPath(), LatestTimeseriesBody(urn, a), nil)
		if err != nil || r.status >= 400 {
			continue
		}
		var resp struct {
			Value struct {
				Values []struct {
					Aspect map[string]any `json:"aspect"`
				} `json:"values"`
			} `json:"value"`
		}
		if json.Unmarshal(r.body, &resp) != nil || len(resp.Value.Values) == 0 {
			continue
		}
		ts := resp.Value.Values[0].Aspect
		text, ok := ts["value"].(string)
		if !ok {
			return nil, &Error{Kind: "TypeError", Func: fn, Reason: "the latest value's aspect.value is not JSON text"}
		}
		var decoded any
		if err := json.Unmarshal([]byte(text), &decoded); err != nil {
			return nil, &Error{Kind: "JSONDecodeError", Func: fn, Reason: "the latest value's aspect.value is not JSON"}
		}
		ts["value"] = decoded
		list[a] = ts
	}
	out := map[string]any{}
	for name, a := range list {
		env, err := object(fn, "aspects."+name, a)
		if err != nil {
			return nil, err
		}
		value, ok := env["value"]
		if !ok {
			return nil, &Error{Kind: "KeyError", Func: fn, Reason: fmt.Sprintf("aspects.%s has no \"value\"", name)}
		}
		out[name] = value
	}
	if len(aspects) > 0 {
		for name := range out {
			if !contains(aspects, name) {
				delete(out, name)
			}
		}
		return out, nil
	}
	if len(out) == 1 {
		for name := range out {
			if strings.Contains(strings.ToLower(name), "key") {
				return nil, &Error{Kind: "ClickException", Func: fn, Reason: fmt.Sprintf("urn %s not found", urn)}
			}
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// EmitMCE is DataHubRestEmitter.emit_mce (emitter/rest_emitter.py): POST
// /entities?action=ingest through _emit_generic, Rest.li whatever the
// configuration chose.
func (c *Client) EmitMCE(ctx context.Context, m MCE) error {
	return c.emitGeneric(ctx, "DataHubRestEmitter.emit_mce", http.MethodPost, EmitMCEPath(), MCEBody(m))
}
