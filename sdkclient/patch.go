package sdkclient

import (
	"context"
	"net/http"
	"strings"
)

// Patches, as DataHub's SDK makes and sends them: the patch builders
// (emitter/mcp_patch_builder.py MetadataPatchProposal, and the helpers of
// specific/aspect_helpers/: tags.py, terms.py, ownership.py,
// custom_properties.py, and specific/dataset.py's lineage) collect JSON
// Patch operations by aspect; build() makes one proposal per aspect with
// changeType PATCH and the operations as the aspect's JSON text
// (json.dumps(pre_json_transform(...))), content type
// application/json-patch+json. emit_mcps sends them as any proposal: in
// ingestProposalBatch over Rest.li, or by OpenApiRequest.from_mcp as
// PATCH /openapi/v3/entity/{type}?async=false with the value
// {"patch": [...]}. DataHubClient.entities.update(patch builder)
// (sdk/entity_client.py _update_patch) checks that the entity exists first.

// The aspect classes the patches write, beside those of aspects.go.
var (
	GlossaryTerms   = AspectType{Name: "glossaryTerms", FullName: "com.linkedin.common.GlossaryTerms", Required: []string{"terms", "auditStamp"}}
	UpstreamLineage = AspectType{Name: "upstreamLineage", FullName: "com.linkedin.dataset.UpstreamLineage", Required: []string{"upstreams"}}
)

// JSONPatchContentType is JSON_PATCH_CONTENT_TYPE (emitter/aspect.py).
const JSONPatchContentType = "application/json-patch+json"

// PatchOp is one operation (_Patch.to_obj): op, the path quoted by
// quote_path_component, and the value as to_obj gives it.
func PatchOp(op string, path []string, value any) Obj {
	quoted := make([]string, len(path))
	for i, p := range path {
		quoted[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
	}
	return Obj{{"op", op}, {"path", "/" + strings.Join(quoted, "/")}, {"value", value}}
}

// DatasetPatchBuilder is specific/dataset.py's DatasetPatchBuilder: the
// operations of each aspect in the order they were added, the aspects in
// the order first patched (a defaultdict's).
type DatasetPatchBuilder struct {
	URN     string
	aspects []string
	patches map[string][]any
}

// NewDatasetPatchBuilder starts a patch of the dataset urn.
func NewDatasetPatchBuilder(urn string) *DatasetPatchBuilder {
	return &DatasetPatchBuilder{URN: urn, patches: map[string][]any{}}
}

func (b *DatasetPatchBuilder) add(aspect, op string, path []string, value any) *DatasetPatchBuilder {
	if _, ok := b.patches[aspect]; !ok {
		b.aspects = append(b.aspects, aspect)
	}
	b.patches[aspect] = append(b.patches[aspect], PatchOp(op, path, value))
	return b
}

// AddTag is HasTagsPatch.add_tag(TagAssociationClass(tag)).
func (b *DatasetPatchBuilder) AddTag(tag string) *DatasetPatchBuilder {
	return b.add("globalTags", "add", []string{"tags", tag}, Obj{{"tag", tag}})
}

// RemoveTag is HasTagsPatch.remove_tag(tag).
func (b *DatasetPatchBuilder) RemoveTag(tag string) *DatasetPatchBuilder {
	return b.add("globalTags", "remove", []string{"tags", tag}, Obj{})
}

// AddTerm is HasTermsPatch.add_term(GlossaryTermAssociationClass(urn)).
func (b *DatasetPatchBuilder) AddTerm(term string) *DatasetPatchBuilder {
	return b.add("glossaryTerms", "add", []string{"terms", term}, Obj{{"urn", term}})
}

// AddOwner is HasOwnershipPatch.add_owner(OwnerClass(owner, type)).
func (b *DatasetPatchBuilder) AddOwner(owner, ownershipType string) *DatasetPatchBuilder {
	return b.add("ownership", "add", []string{"owners", owner, ownershipType}, Obj{{"owner", owner}, {"type", ownershipType}})
}

// RemoveOwner is HasOwnershipPatch.remove_owner(owner): every type of the
// owner's ownership.
func (b *DatasetPatchBuilder) RemoveOwner(owner string) *DatasetPatchBuilder {
	return b.add("ownership", "remove", []string{"owners", owner}, owner)
}

// AddCustomProperty is HasCustomPropertiesPatch.add_custom_property, at
// the dataset's location (datasetProperties, /customProperties).
func (b *DatasetPatchBuilder) AddCustomProperty(key, value string) *DatasetPatchBuilder {
	return b.add("datasetProperties", "add", []string{"customProperties", key}, value)
}

// RemoveCustomProperty is HasCustomPropertiesPatch.remove_custom_property.
func (b *DatasetPatchBuilder) RemoveCustomProperty(key string) *DatasetPatchBuilder {
	return b.add("datasetProperties", "remove", []string{"customProperties", key}, Obj{})
}

// AddUpstreamLineage is DatasetPatchBuilder.add_upstream_lineage with an
// UpstreamClass(dataset, type): its to_obj holds the default audit stamp.
func (b *DatasetPatchBuilder) AddUpstreamLineage(dataset, lineageType string) *DatasetPatchBuilder {
	upstream := Obj{{"auditStamp", Obj{{"time", 0}, {"actor", "urn:li:corpuser:unknown"}}}, {"dataset", dataset}, {"type", lineageType}}
	return b.add("upstreamLineage", "add", []string{"upstreams", dataset}, upstream)
}

// Build is MetadataPatchProposal.build(): one PATCH proposal per aspect.
func (b *DatasetPatchBuilder) Build() []MCP {
	out := make([]MCP, 0, len(b.aspects))
	for _, a := range b.aspects {
		out = append(out, MCP{EntityURN: b.URN, ChangeType: "PATCH", AspectName: a, Patch: b.patches[a]})
	}
	return out
}

// EntitiesUpdate is DataHubClient.entities.update(patch builder)
// (sdk/entity_client.py _update_patch): the entity must exist (exists()),
// then its proposals go out with emit_mcps.
func (c *Client) EntitiesUpdate(ctx context.Context, b *DatasetPatchBuilder) error {
	ok, err := c.Exists(ctx, b.URN)
	if err != nil {
		return err
	}
	if !ok {
		return &Error{Kind: "SdkUsageError", Func: "EntityClient.update", Reason: "Entity " + b.URN + " does not exist, and hence cannot be updated."}
	}
	return c.EmitMCPs(ctx, b.Build(), false)
}

// OpenAPIPatchPath is the path a PATCH proposal goes to on the OpenAPI path.
func OpenAPIPatchPath(entityType string, async bool) string {
	return "/openapi/v3/entity/" + entityType + "?async=" + asyncFlag(async)
}

// patchMethod is the OpenAPI method of a proposal ("patch" for a PATCH).
func patchMethod(m MCP) string {
	if m.changeType() == "PATCH" {
		return http.MethodPatch
	}
	return http.MethodPost
}
