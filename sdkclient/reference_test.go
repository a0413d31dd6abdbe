package sdkclient_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
	"github.com/catalogspec/catalogspec/reference/pgprovider"
	"github.com/catalogspec/catalogspec/sdkclient"
)

// DataHub's SDK against the reference: catalogd built from this module and
// started on free loopback ports over a real PostgreSQL (from pgprovider,
// as the suite gets one), driven by the calls the SDK makes, each answer
// read as the SDK reads it. The SDK itself cannot be installed here (no
// Python registry); sdkclient sends what its source sends.

var (
	buildOnce sync.Once
	catalogd  string
	remove    = func() {}
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	remove()
	os.Exit(code)
}

// binary builds catalogd once (CATALOGSPEC_SDKCLIENT_CATALOGD names one
// already built).
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		catalogd, remove, buildErr = catalogdtest.Binary(context.Background(), os.Getenv("CATALOGSPEC_SDKCLIENT_CATALOGD"))
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return catalogd
}

// reference is one `catalogd serve` with its two tiers and a root token.
type reference struct {
	gms, frontend string
	root          string
	srv           *catalogdtest.Server
}

func start(t *testing.T) *reference {
	t.Helper()
	bin := binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := pgprovider.Provide(ctx, pgprovider.Options{})
	if err != nil {
		t.Fatalf("this test needs PostgreSQL: %v", err)
	}
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	srv := catalogdtest.New(t, catalogdtest.Options{Binary: bin, DatabaseURL: db.URL,
		Env: []string{"CATALOGD_ROOT_PASSWORD=sdkclient-root-password"}, Args: []string{"--log-level", "warn"}})
	ref := &reference{gms: srv.GMS, frontend: srv.Frontend, srv: srv}
	ref.root = ref.mint(t, catalogdtest.Root)
	return ref
}

// mint has `catalogd token create` make a token for actor.
func (r *reference) mint(t *testing.T, actor string) string {
	t.Helper()
	return r.srv.NewToken(t, actor, "sdkclient", "ONE_HOUR")
}

func datasetURN() string {
	return "urn:li:dataset:(urn:li:dataPlatform:hive,sdkclient." + uuid.NewString()[:8] + ",PROD)"
}

func properties(description string) sdkclient.Obj {
	return sdkclient.Obj{{Key: "customProperties", Value: sdkclient.Obj{}}, {Key: "description", Value: description}, {Key: "tags", Value: []any{}}}
}

func memory(description string) sdkclient.Obj {
	element := sdkclient.Obj{{Key: "url", Value: "https://example.com/doc"}, {Key: "description", Value: description},
		{Key: "createStamp", Value: sdkclient.Obj{{Key: "time", Value: int64(1711540000000)}, {Key: "actor", Value: "urn:li:corpuser:datahub"}}}}
	return sdkclient.Obj{{Key: "elements", Value: []any{element}}}
}

// TestTheSDKAgainstTheReference: the /config handshake chooses OpenAPI, as
// against DataHub v1.5.0; every write the SDK makes, on either path and
// through either tier, reads back through every read it makes.
func TestTheSDKAgainstTheReference(t *testing.T) {
	ref := start(t)
	ctx := context.Background()

	for _, tier := range []struct{ name, server string }{{"metadata service", ref.gms}, {"frontend", ref.frontend + "/api/gms"}} {
		// DataHubGraph in SDK mode: fetch_server_config decides the path.
		c := &sdkclient.Client{Server: tier.server, Token: ref.root}
		cfg, err := c.FetchServerConfig(ctx)
		if err != nil {
			t.Fatalf("%s: fetch_server_config: %v", tier.name, err)
		}
		if c.OpenAPI == nil || !*c.OpenAPI || c.Version != [4]int{1, 5, 0, 0} {
			t.Fatalf("%s: /config %v makes the SDK choose OpenAPI %v at version %v; want OpenAPI at 1.5.0", tier.name, cfg, c.OpenAPI, c.Version)
		}
		// The same SDK made to write through Rest.li, as the datahub-rest
		// sink does (its client mode is INGESTION) and as an SDK told so
		// by DATAHUB_REST_EMITTER_DEFAULT_ENDPOINT=RESTLI does.
		restli := false
		r := &sdkclient.Client{Server: tier.server, Token: ref.root, OpenAPI: &restli}
		for _, path := range []struct {
			name string
			c    *sdkclient.Client
		}{{"OpenAPI", c}, {"Rest.li", r}} {
			t.Run(tier.name+" "+path.name, func(t *testing.T) { emitsAndReads(t, path.c) })
		}
	}

	// execute_graphql: data back; an error raises.
	c := &sdkclient.Client{Server: ref.gms, Token: ref.root}
	data, err := c.ExecuteGraphQL(ctx, "query Me { me { corpUser { urn } } }", nil, "Me")
	if err != nil || !strings.Contains(fmt.Sprint(data), "urn:li:corpuser:datahub") {
		t.Errorf("execute_graphql of me: %v, %v", data, err)
	}
	if _, err := c.ExecuteGraphQL(ctx, "{ nosuchfield }", nil, ""); kind(err) != "GraphError" {
		t.Errorf("execute_graphql of a field there is not: %v, want GraphError", err)
	}

	// A user the SDK has made, without EDIT_ENTITY: the write is refused,
	// and the SDK raises with the server's reason.
	user := "urn:li:corpuser:sdkclient-" + uuid.NewString()[:8]
	if err := c.EmitMCP(ctx, sdkclient.MCP{EntityURN: user, AspectName: "corpUserInfo", Aspect: sdkclient.Obj{{Key: "active", Value: true}, {Key: "displayName", Value: "SDK"}}}, false); err != nil {
		t.Fatalf("emit_mcp of a user: %v", err)
	}
	u := &sdkclient.Client{Server: ref.gms, Token: ref.mint(t, user)}
	if _, err := u.FetchServerConfig(ctx); err != nil {
		t.Fatal(err)
	}
	urn := datasetURN()
	err = u.EmitMCP(ctx, sdkclient.MCP{EntityURN: urn, AspectName: "datasetProperties", Aspect: properties("refused")}, false)
	if kind(err) != "OperationalError" || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("emit_mcp without EDIT_ENTITY: %v, want OperationalError with the reason", err)
	}
	if ok, err := c.Exists(ctx, urn); err != nil || ok {
		t.Errorf("after a refused write, exists() = %v, %v; want false", ok, err)
	}
	// Without a token, /config still answers (the SDK fetches it first).
	anonymous := &sdkclient.Client{Server: ref.gms}
	if _, err := anonymous.FetchServerConfig(ctx); err != nil {
		t.Errorf("fetch_server_config without a token: %v", err)
	}
	if _, _, err := anonymous.GetAspect(ctx, urn, sdkclient.DatasetProperties, 0); kind(err) != "HTTPError" || !strings.Contains(err.Error(), "401") {
		t.Errorf("get_aspect without a token: %v, want HTTPError 401", err)
	}
}

func kind(err error) string {
	if e, ok := err.(*sdkclient.Error); ok {
		return e.Kind
	}
	if err == nil {
		return ""
	}
	return "other"
}

// emitsAndReads writes with emit_mcp and emit_mcps and reads back with
// get_aspect, exists, get_entity_raw, get_aspects_for_entity,
// get_entity_semityped and get_entities; then deletes (OpenAPI only).
func emitsAndReads(t *testing.T, c *sdkclient.Client) {
	ctx := context.Background()
	one, two, never := datasetURN(), datasetURN(), datasetURN()

	// emit_mcp
	if err := c.EmitMCP(ctx, sdkclient.MCP{EntityURN: one, AspectName: "datasetProperties", Aspect: properties("one")}, false); err != nil {
		t.Fatalf("emit_mcp: %v", err)
	}
	// emit_mcps: another aspect of the first, two of a second, one of
	// them sent for asynchronous ingestion in a second call.
	if err := c.EmitMCPs(ctx, []sdkclient.MCP{
		{EntityURN: one, AspectName: "institutionalMemory", Aspect: memory("remembered")},
		{EntityURN: two, AspectName: "datasetProperties", Aspect: properties("two")},
	}, false); err != nil {
		t.Fatalf("emit_mcps: %v", err)
	}
	if err := c.EmitMCPs(ctx, []sdkclient.MCP{{EntityURN: two, AspectName: "status", Aspect: sdkclient.Obj{{Key: "removed", Value: false}}}}, true); err != nil {
		t.Fatalf("emit_mcps, async: %v", err)
	}

	// get_aspect and exists
	for urn, want := range map[string]string{one: "one", two: "two"} {
		p, ok, err := c.GetAspect(ctx, urn, sdkclient.DatasetProperties, 0)
		if err != nil || !ok || p["description"] != want {
			t.Errorf("get_aspect of %s's properties: %v, %v, %v; want the description %q", urn, p, ok, err, want)
		}
		if ok, err := c.Exists(ctx, urn); err != nil || !ok {
			t.Errorf("exists(%s) = %v, %v; want true", urn, ok, err)
		}
	}
	if s, ok, err := c.GetAspect(ctx, two, sdkclient.Status, 0); err != nil || !ok || s["removed"] != false {
		t.Errorf("get_aspect of the status sent asynchronously: %v, %v, %v", s, ok, err)
	}
	if o, ok, err := c.GetAspect(ctx, one, sdkclient.Ownership, 0); err != nil || ok {
		t.Errorf("get_aspect of an ownership no one wrote: %v, %v, %v; want None", o, ok, err)
	}
	if ok, err := c.Exists(ctx, never); err != nil || ok {
		t.Errorf("exists(a dataset never written) = %v, %v; want false", ok, err)
	}

	// get_entity_raw, with and without a list
	raw, err := c.GetEntityRaw(ctx, one, nil)
	if err != nil || !strings.Contains(fmt.Sprint(raw["aspects"]), "remembered") || !strings.Contains(fmt.Sprint(raw["aspects"]), "one") {
		t.Errorf("get_entity_raw of %s: %v, %v", one, raw, err)
	}
	got, err := c.GetAspectsForEntity(ctx, one, []sdkclient.AspectType{sdkclient.DatasetProperties, sdkclient.Ownership})
	if err != nil || got["datasetProperties"]["description"] != "one" || got["ownership"] != nil {
		t.Errorf("get_aspects_for_entity of %s: %v, %v", one, got, err)
	}
	bag, err := c.GetEntitySemityped(ctx, two, nil)
	if err != nil || bag["datasetProperties"]["description"] != "two" || bag["datasetKey"]["platform"] != "urn:li:dataPlatform:hive" || bag["status"] == nil {
		t.Errorf("get_entity_semityped of %s: %v, %v", two, bag, err)
	}
	if bag, err := c.GetEntitySemityped(ctx, never, nil); err != nil || len(bag) != 1 || bag["datasetKey"] == nil {
		t.Errorf("get_entity_semityped of a dataset never written: %v, %v; want its key alone", bag, err)
	}

	// batch_get_ids (`datahub migrate`)
	batch, err := c.BatchGetIDs(ctx, []string{one, never})
	if err != nil || len(batch) != 2 || !strings.Contains(fmt.Sprint(batch), "remembered") {
		t.Errorf("batch_get_ids of %s and a dataset never written: %v, %v", one, batch, err)
	}

	// get_entities (OpenAPI), whichever path writes
	entities, err := c.GetEntities(ctx, "dataset", []string{one, never}, []string{"datasetProperties"})
	if err != nil || len(entities) != 1 || entities[one]["datasetProperties"]["description"] != "one" {
		t.Errorf("get_entities of %s and a dataset never written: %v, %v", one, entities, err)
	}

	// A proposal to delete: on OpenAPI a DELETE of the entity.
	if c.OpenAPI != nil && *c.OpenAPI {
		if err := c.EmitMCP(ctx, sdkclient.MCP{EntityURN: two, AspectName: "datasetProperties", ChangeType: "DELETE"}, false); err != nil {
			t.Fatalf("emit_mcp of a DELETE: %v", err)
		}
		if ok, err := c.Exists(ctx, two); err != nil || ok {
			t.Errorf("exists(%s) after its deletion = %v, %v; want false", two, ok, err)
		}
	}
}
