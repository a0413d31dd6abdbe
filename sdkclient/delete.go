package sdkclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
)

// Hard deletion, as DataHubGraph sends it (ingestion/graph/client.py) and
// `datahub delete` uses it (cli/delete_cli.py): hard_delete_entity and
// delete_references_to_urn post Rest.li actions with _post_generic, which
// raises OperationalError for a status of 400 or more and returns the JSON
// answer, whose "value" they read.

// DeleteEntityPath and DeleteReferencesPath are the actions' paths.
const (
	DeleteEntityPath     = "/entities?action=delete"
	DeleteReferencesPath = "/entities?action=deleteReferences"
)

// DeleteEntityBody is hard_delete_entity's payload: {"urn": urn}.
func DeleteEntityBody(urn string) []byte { return Dumps(Obj{{"urn", urn}}) }

// DeleteReferencesBody is delete_references_to_urn's payload.
func DeleteReferencesBody(urn string, dryRun bool) []byte {
	return Dumps(Obj{{"urn", urn}, {"dryRun", dryRun}})
}

// postGeneric is DataHubGraph._post_generic (_send_restli_request): the
// answer as JSON; a status of 400 or more raises OperationalError with the
// answer's JSON (its message) when there is one.
func (c *Client) postGeneric(ctx context.Context, fn, path string, body []byte) (map[string]any, error) {
	r, err := c.send(ctx, http.MethodPost, path, body, nil)
	if err != nil {
		return nil, err
	}
	if r.status >= 400 && r.status < 600 {
		var info map[string]any
		reason := "Unable to get metadata from DataHub"
		if json.Unmarshal(r.body, &info) == nil {
			reason += fmt.Sprintf(": %v", info["message"])
		}
		return nil, &Error{Kind: "OperationalError", Func: fn, Status: r.status, Reason: reason}
	}
	v, err := decodeJSON(fn, r)
	if err != nil {
		return nil, err
	}
	return object(fn, "the answer", v)
}

// intOf is summary.get(key, 0) where the SDK takes the value as an int.
func intOf(fn string, m map[string]any, key string) (int, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return 0, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, &Error{Kind: "TypeError", Func: fn, Reason: fmt.Sprintf("%s is %s, not a number", key, kindOf(v))}
	}
	i, err := n.Int64()
	if err != nil {
		return 0, &Error{Kind: "TypeError", Func: fn, Reason: fmt.Sprintf("%s is %s, not a whole number", key, n)}
	}
	return int(i), nil
}

// HardDeleteEntity is DataHubGraph.hard_delete_entity: the rows and
// timeseries rows the server says it deleted.
func (c *Client) HardDeleteEntity(ctx context.Context, urn string) (int, int, error) {
	const fn = "DataHubGraph.hard_delete_entity"
	answer, err := c.postGeneric(ctx, fn, DeleteEntityPath, DeleteEntityBody(urn))
	if err != nil {
		return 0, 0, err
	}
	summary, err := getObject(fn, "the answer", answer, "value")
	if err != nil {
		return 0, 0, err
	}
	rows, err := intOf(fn, summary, "rows")
	if err != nil {
		return 0, 0, err
	}
	ts, err := intOf(fn, summary, "timeseriesRows")
	return rows, ts, err
}

// DeleteReferencesToURN is DataHubGraph.delete_references_to_urn: the
// number of references, and a sample of the aspects that hold them.
func (c *Client) DeleteReferencesToURN(ctx context.Context, urn string, dryRun bool) (int, []map[string]any, error) {
	const fn = "DataHubGraph.delete_references_to_urn"
	answer, err := c.postGeneric(ctx, fn, DeleteReferencesPath, DeleteReferencesBody(urn, dryRun))
	if err != nil {
		return 0, nil, err
	}
	response, err := getObject(fn, "the answer", answer, "value")
	if err != nil {
		return 0, nil, err
	}
	total, err := intOf(fn, response, "total")
	if err != nil {
		return 0, nil, err
	}
	var related []map[string]any
	if raw, ok := response["relatedAspects"]; ok && raw != nil {
		list, ok := raw.([]any)
		if !ok {
			return 0, nil, &Error{Kind: "TypeError", Func: fn, Reason: "relatedAspects is " + kindOf(raw) + ", not a list"}
		}
		for _, e := range list {
			m, err := object(fn, "a related aspect", e)
			if err != nil {
				return 0, nil, err
			}
			// `datahub delete references` tabulates x.values() as
			// relationship, entity, aspect: all three must be there.
			for _, k := range []string{"entity", "aspect", "relationship"} {
				if _, ok := m[k].(string); !ok {
					return 0, nil, &Error{Kind: "KeyError", Func: fn, Reason: "a related aspect has no " + k}
				}
			}
			related = append(related, m)
		}
	}
	return total, related, nil
}

// deleteWithReferencesTypes is _DELETE_WITH_REFERENCES_TYPES
// (cli/delete_cli.py): after a hard deletion of one of these, the CLI
// removes the references to it.
var deleteWithReferencesTypes = []string{"tag", "corpuser", "corpGroup", "domain", "glossaryTerm", "glossaryNode", "form"}

// DeletionResult is delete_cli.py's DeletionResult.
type DeletionResult struct {
	Entities, Records, TimeseriesRecords, ReferencedEntities int
}

// DeleteOneURN is delete_cli.py's _delete_one_urn for a hard deletion of
// a whole entity: hard_delete_entity, then, for the types whose references
// the CLI cleans, delete_references_to_urn.
func (c *Client) DeleteOneURN(ctx context.Context, urn string) (DeletionResult, error) {
	rows, ts, err := c.HardDeleteEntity(ctx, urn)
	if err != nil {
		return DeletionResult{}, err
	}
	res := DeletionResult{Entities: 1, Records: rows, TimeseriesRecords: ts}
	if slices.Contains(deleteWithReferencesTypes, guessEntityType(urn)) {
		n, _, err := c.DeleteReferencesToURN(ctx, urn, false)
		if err != nil {
			return DeletionResult{}, err
		}
		res.ReferencedEntities = n
	}
	return res, nil
}

// DeleteByFilter is `datahub delete --hard --force` with filters
// (delete_cli.py by_filter): the URNs of get_urns_by_filter with every
// status (a hard deletion includes the soft-deleted, RemovedStatusFilter.ALL),
// skip_cache, batch_size 3000 (the CLI's default), then each deleted in turn
// (_delete_urns_parallel with one worker; an error on one URN is printed
// and the rest go on, so it is returned alongside what was deleted).
func (c *Client) DeleteByFilter(ctx context.Context, f Filter) (DeletionResult, []error, error) {
	f.Status = StatusAll
	f.SkipCache = true
	if f.BatchSize == 0 {
		f.BatchSize = 3000
	}
	urns, err := c.GetURNsByFilter(ctx, f)
	if err != nil {
		return DeletionResult{}, nil, err
	}
	var (
		total DeletionResult
		errs  []error
	)
	for _, u := range urns {
		r, err := c.DeleteOneURN(ctx, u)
		if err != nil {
			errs = append(errs, fmt.Errorf("Error processing URN %s: %w", u, err))
			continue
		}
		total.Entities += r.Entities
		total.Records += r.Records
		total.TimeseriesRecords += r.TimeseriesRecords
		total.ReferencedEntities += r.ReferencedEntities
	}
	return total, errs, nil
}

// guessEntityType is guess_entity_type (utilities/urns/urn.py).
func guessEntityType(urn string) string { return MCP{EntityURN: urn}.entityType() }
