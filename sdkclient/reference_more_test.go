package sdkclient_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/sdkclient"
)

// TestPatchSearchAndDeletionAgainstTheReference: DataHub's SDK's patch
// builders (entities.update over OpenAPI, emit_mcps over Rest.li),
// get_urns_by_filter, `datahub delete --hard` by URN and by filter,
// delete_references_to_urn, and datahub-gc's expired-token listing, each
// as the SDK sends it, against a catalogd, each answer read as the SDK
// reads it and each effect read back with the SDK's reads.
func TestPatchSearchAndDeletionAgainstTheReference(t *testing.T) {
	ref := start(t)
	ctx := context.Background()
	c := &sdkclient.Client{Server: ref.gms, Token: ref.root}
	if _, err := c.FetchServerConfig(ctx); err != nil || c.OpenAPI == nil || !*c.OpenAPI {
		t.Fatalf("fetch_server_config: %v (OpenAPI %v)", err, c.OpenAPI)
	}
	restliFalse := false
	restli := &sdkclient.Client{Server: ref.gms, Token: ref.root, OpenAPI: &restliFalse}
	platform := "sdkclient" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	onPlatform := func(name string) string {
		return fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:%s,%s,PROD)", platform, name)
	}
	a, b, other := onPlatform("a"), onPlatform("b"), datasetURN()
	if err := c.EmitMCPs(ctx, []sdkclient.MCP{
		{EntityURN: a, AspectName: "datasetProperties", Aspect: properties("a")},
		{EntityURN: b, AspectName: "datasetProperties", Aspect: properties("b")},
		{EntityURN: other, AspectName: "datasetProperties", Aspect: properties("other")},
	}, false); err != nil {
		t.Fatalf("emit_mcps: %v", err)
	}

	t.Run("entities.update with a patch, over OpenAPI", func(t *testing.T) {
		p := sdkclient.NewDatasetPatchBuilder(a).AddTag("urn:li:tag:pii").AddTag("urn:li:tag:gold").
			AddOwner("urn:li:corpuser:ann", "TECHNICAL_OWNER").AddCustomProperty("team", "data").
			AddTerm("urn:li:glossaryTerm:revenue").AddUpstreamLineage(other, "TRANSFORMED")
		if err := c.EntitiesUpdate(ctx, p); err != nil {
			t.Fatalf("entities.update: %v", err)
		}
		tags, ok, err := c.GetAspect(ctx, a, sdkclient.GlobalTags, 0)
		if err != nil || !ok || fmt.Sprint(tags["tags"]) != "[map[tag:urn:li:tag:pii] map[tag:urn:li:tag:gold]]" {
			t.Errorf("get_aspect of the tags patched: %v, %v, %v", tags, ok, err)
		}
		props, _, err := c.GetAspect(ctx, a, sdkclient.DatasetProperties, 0)
		if err != nil || props["description"] != "a" || fmt.Sprint(props["customProperties"]) != "map[team:data]" {
			t.Errorf("get_aspect of the properties patched: %v, %v", props, err)
		}
		owners, _, err := c.GetAspect(ctx, a, sdkclient.Ownership, 0)
		if err != nil || !strings.Contains(fmt.Sprint(owners["owners"]), "urn:li:corpuser:ann") {
			t.Errorf("get_aspect of the owners patched: %v, %v", owners, err)
		}
		terms, _, err := c.GetAspect(ctx, a, sdkclient.GlossaryTerms, 0)
		if err != nil || !strings.Contains(fmt.Sprint(terms["terms"]), "urn:li:glossaryTerm:revenue") {
			t.Errorf("get_aspect of the terms patched: %v, %v", terms, err)
		}
		lineage, _, err := c.GetAspect(ctx, a, sdkclient.UpstreamLineage, 0)
		if err != nil || !strings.Contains(fmt.Sprint(lineage["upstreams"]), other) {
			t.Errorf("get_aspect of the lineage patched: %v, %v", lineage, err)
		}
		// entities.update refuses an entity that does not exist, before
		// sending anything.
		if err := c.EntitiesUpdate(ctx, sdkclient.NewDatasetPatchBuilder(datasetURN()).AddTag("urn:li:tag:x")); kind(err) != "SdkUsageError" {
			t.Errorf("entities.update of a dataset never written: %v, want SdkUsageError", err)
		}
	})

	t.Run("a patch builder's proposals over Rest.li", func(t *testing.T) {
		if err := restli.EmitMCPs(ctx, sdkclient.NewDatasetPatchBuilder(a).RemoveTag("urn:li:tag:pii").AddTag("urn:li:tag:silver").Build(), false); err != nil {
			t.Fatalf("emit_mcps of a patch over Rest.li: %v", err)
		}
		tags, _, err := c.GetAspect(ctx, a, sdkclient.GlobalTags, 0)
		if err != nil || fmt.Sprint(tags["tags"]) != "[map[tag:urn:li:tag:gold] map[tag:urn:li:tag:silver]]" {
			t.Errorf("get_aspect after a patch over Rest.li: %v, %v", tags, err)
		}
	})

	t.Run("get_urns_by_filter", func(t *testing.T) {
		got, err := c.GetURNsByFilter(ctx, sdkclient.Filter{Platforms: []string{platform}, BatchSize: 1})
		slices.Sort(got)
		if err != nil || !slices.Equal(got, []string{a, b}) {
			t.Errorf("get_urns_by_filter(platform=%s, batch_size=1) = %v, %v; want %v", platform, got, err, []string{a, b})
		}
		got, err = c.GetURNsByFilter(ctx, sdkclient.Filter{EntityTypes: []string{"dataset"}, Query: "other"})
		if err != nil || !slices.Contains(got, other) || slices.Contains(got, a) {
			t.Errorf("get_urns_by_filter(query=other) = %v, %v", got, err)
		}
	})

	t.Run("delete_references_to_urn", func(t *testing.T) {
		n, related, err := c.DeleteReferencesToURN(ctx, "urn:li:tag:gold", true)
		if err != nil || n != 1 || len(related) != 1 || related[0]["entity"] != a || related[0]["relationship"] != "TaggedWith" {
			t.Fatalf("delete_references_to_urn(dry_run=True) = %d, %v, %v", n, related, err)
		}
		if n, _, err := c.DeleteReferencesToURN(ctx, "urn:li:tag:gold", false); err != nil || n != 1 {
			t.Fatalf("delete_references_to_urn = %d, %v", n, err)
		}
		tags, _, err := c.GetAspect(ctx, a, sdkclient.GlobalTags, 0)
		if err != nil || fmt.Sprint(tags["tags"]) != "[map[tag:urn:li:tag:silver]]" {
			t.Errorf("after deleting the references to a tag, get_aspect of the tags: %v, %v", tags, err)
		}
	})

	t.Run("datahub delete --hard, by URN and by filter", func(t *testing.T) {
		res, err := c.DeleteOneURN(ctx, other)
		if err != nil || res.Records < 2 {
			t.Fatalf("datahub delete --urn --hard: %+v, %v", res, err)
		}
		if ok, err := c.Exists(ctx, other); err != nil || ok {
			t.Errorf("exists() after a hard deletion = %v, %v", ok, err)
		}
		res, errs, err := c.DeleteByFilter(ctx, sdkclient.Filter{Platforms: []string{platform}})
		if err != nil || len(errs) > 0 || res.Entities != 2 {
			t.Fatalf("datahub delete --platform %s --hard: %+v, %v, %v", platform, res, errs, err)
		}
		for _, u := range []string{a, b} {
			if ok, err := c.Exists(ctx, u); err != nil || ok {
				t.Errorf("exists(%s) after deletion by filter = %v, %v", u, ok, err)
			}
		}
		if got, err := c.GetURNsByFilter(ctx, sdkclient.Filter{Platforms: []string{platform}}); err != nil || len(got) != 0 {
			t.Errorf("get_urns_by_filter after deleting the platform's datasets: %v, %v", got, err)
		}
		// A user without DELETE_ENTITY is refused, and the SDK raises.
		user := "urn:li:corpuser:sdkclient-" + uuid.NewString()[:8]
		if err := c.EmitMCP(ctx, sdkclient.MCP{EntityURN: user, AspectName: "corpUserInfo", Aspect: sdkclient.Obj{{Key: "active", Value: true}}}, false); err != nil {
			t.Fatal(err)
		}
		kept := datasetURN()
		if err := c.EmitMCP(ctx, sdkclient.MCP{EntityURN: kept, AspectName: "datasetProperties", Aspect: properties("kept")}, false); err != nil {
			t.Fatal(err)
		}
		u := &sdkclient.Client{Server: ref.gms, Token: ref.mint(t, user)}
		if _, _, err := u.HardDeleteEntity(ctx, kept); kind(err) != "OperationalError" || !strings.Contains(err.Error(), "403") {
			t.Errorf("hard_delete_entity without DELETE_ENTITY: %v, want OperationalError (403)", err)
		}
		if ok, err := c.Exists(ctx, kept); err != nil || !ok {
			t.Errorf("after a refused deletion, exists() = %v, %v", ok, err)
		}
	})

	t.Run("datahub-gc revokes the expired tokens", func(t *testing.T) {
		gc := &sdkclient.Client{Server: ref.gms, Token: ref.srv.NewToken(t, "urn:li:corpuser:datahub", "gc", "ONE_MONTH")}
		user := "urn:li:corpuser:sdkclient-gc-" + uuid.NewString()[:8]
		if err := c.EmitMCP(ctx, sdkclient.MCP{EntityURN: user, AspectName: "corpUserInfo", Aspect: sdkclient.Obj{{Key: "active", Value: true}}}, false); err != nil {
			t.Fatal(err)
		}
		hour := ref.srv.NewToken(t, user, "gc-hour", "ONE_HOUR")
		later := time.Now().Add(2 * time.Hour)
		ids, total, err := gc.ExpiredTokens(ctx, time.Now())
		if err != nil || total != 0 || len(ids) != 0 {
			t.Errorf("_get_expired_tokens now = %v, %d, %v; want none expired", ids, total, err)
		}
		ids, total, err = gc.ExpiredTokens(ctx, later)
		if err != nil || total < 2 || len(ids) < 2 {
			t.Errorf("_get_expired_tokens two hours on = %v, %d, %v; want the two tokens of an hour", ids, total, err)
		}
		n, err := gc.RevokeExpiredTokens(ctx, later)
		if err != nil || n < 2 {
			t.Errorf("revoke_expired_tokens two hours on revoked %d: %v", n, err)
		}
		hc := &sdkclient.Client{Server: ref.gms, Token: hour}
		if _, err := hc.ExecuteGraphQL(ctx, "{ me { corpUser { urn } } }", nil, ""); kind(err) != "OperationalError" {
			t.Errorf("a token the gc revoked still works: %v", err)
		}
		if _, err := gc.ExecuteGraphQL(ctx, "{ me { corpUser { urn } } }", nil, ""); err != nil {
			t.Errorf("the gc revoked a token that lasts a month: %v", err)
		}
	})
}
