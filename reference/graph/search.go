package graph

import (
	"context"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/graph/model"
)

// entityNames maps DataHub's GraphQL EntityType to its entity names
// (datahub-graphql-core/.../types/entitytype/EntityTypeMapper.java and
// li-utils/.../metadata/Constants.java, at commit 7e93355).
var entityNames = map[model.EntityType]string{
	model.EntityTypeDomain: "domain", model.EntityTypeDataset: "dataset", model.EntityTypeCorpUser: "corpuser",
	model.EntityTypeCorpGroup: "corpGroup", model.EntityTypeDataPlatform: "dataPlatform",
	model.EntityTypeErModelRelationship: "erModelRelationship", model.EntityTypeDashboard: "dashboard",
	model.EntityTypeNotebook: "notebook", model.EntityTypeChart: "chart", model.EntityTypeDataFlow: "dataFlow",
	model.EntityTypeDataJob: "dataJob", model.EntityTypeTag: "tag", model.EntityTypeGlossaryTerm: "glossaryTerm",
	model.EntityTypeGlossaryNode: "glossaryNode", model.EntityTypeContainer: "container", model.EntityTypeMlmodel: "mlModel",
	model.EntityTypeMlmodelGroup: "mlModelGroup", model.EntityTypeMlfeatureTable: "mlFeatureTable",
	model.EntityTypeMlfeature: "mlFeature", model.EntityTypeMlprimaryKey: "mlPrimaryKey",
	model.EntityTypeIngestionSource: "dataHubIngestionSource", model.EntityTypeExecutionRequest: "dataHubExecutionRequest",
	model.EntityTypeAssertion: "assertion", model.EntityTypeDataProcessInstance: "dataProcessInstance",
	model.EntityTypeDataPlatformInstance: "dataPlatformInstance", model.EntityTypeAccessToken: "dataHubAccessToken",
	model.EntityTypeTest: "test", model.EntityTypeDatahubPolicy: "dataHubPolicy", model.EntityTypeDatahubRole: "dataHubRole",
	model.EntityTypePost: "post", model.EntityTypeSchemaField: "schemaField", model.EntityTypeDatahubView: "dataHubView",
	model.EntityTypeQuery: "query", model.EntityTypeDataProduct: "dataProduct",
	model.EntityTypeCustomOwnershipType: "ownershipType", model.EntityTypeIncident: "incident", model.EntityTypeRole: "role",
	model.EntityTypeStructuredProperty: "structuredProperty", model.EntityTypeForm: "form", model.EntityTypeDataType: "dataType",
	model.EntityTypeEntityType: "entityType", model.EntityTypeRestricted: "restricted",
	model.EntityTypeBusinessAttribute: "businessAttribute", model.EntityTypeDataContract: "dataContract",
	model.EntityTypeApplication: "application", model.EntityTypeDocument: "document",
}

// entityTypes is entityNames backwards.
var entityTypes = func() map[string]model.EntityType {
	m := make(map[string]model.EntityType, len(entityNames))
	for t, n := range entityNames {
		m[n] = t
	}
	return m
}()

// ScrollAcrossEntities answers one page of a search.
func (r *queryResolver) ScrollAcrossEntities(ctx context.Context, in model.ScrollAcrossEntitiesInput) (*model.ScrollResults, error) {
	if in.ViewUrn != nil {
		return nil, reference.Errorf(reference.EBADREQUEST, "views are not served: search without viewUrn")
	}
	q := reference.SearchInput{Query: in.Query, ScrollID: deref(in.ScrollID), Count: in.Count}
	if len(in.Types) > 0 {
		q.Types = []string{}
		for _, t := range in.Types {
			name, ok := entityNames[t]
			if !ok {
				// DataHub's EntityTypeMapper.getName: "Unknown entity type".
				return nil, reference.Errorf(reference.EBADREQUEST, "Unknown entity type: %s", t)
			}
			q.Types = append(q.Types, name)
		}
	}
	if in.SearchFlags != nil {
		q.IncludeSoftDeleted = deref(in.SearchFlags.IncludeSoftDeleted)
	}
	for _, and := range in.OrFilters {
		var conj []reference.Criterion
		if and != nil {
			for _, f := range and.And {
				if f == nil {
					continue
				}
				values := f.Values
				if f.Value != nil {
					values = append(values, *f.Value)
				}
				c := reference.Criterion{Field: f.Field, Values: values, Negated: deref(f.Negated)}
				if f.Condition != nil {
					c.Condition = string(*f.Condition)
				}
				conj = append(conj, c)
			}
		}
		q.Or = append(q.Or, conj)
	}
	res, err := r.Service.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &model.ScrollResults{Count: len(res.URNs), Total: res.Total, SearchResults: []*model.SearchResult{}}
	if res.NextScrollID != "" {
		out.NextScrollID = &res.NextScrollID
	}
	for _, urn := range res.URNs {
		out.SearchResults = append(out.SearchResults, &model.SearchResult{Entity: r.searchEntity(ctx, urn), MatchedFields: []*model.MatchedField{}})
	}
	return out, nil
}

// searchEntity is a hit as its GraphQL type.
func (r *queryResolver) searchEntity(ctx context.Context, urn reference.URN) model.Entity {
	u, t := urn.String(), entityTypes[urn.EntityType]
	switch urn.EntityType {
	case reference.EntityCorpUser:
		return &model.CorpUser{Urn: u, Type: t, Username: urn.ID}
	case reference.EntityTag:
		name := urn.ID
		if tag, err := r.Service.Tag(ctx, u); err == nil && tag != nil && tag.Name != "" {
			name = tag.Name
		}
		return &model.Tag{Urn: u, Type: t, Name: name}
	case "container":
		return &model.Container{Urn: u, Type: t}
	case "dashboard":
		return &model.Dashboard{Urn: u, Type: t}
	case "chart":
		return &model.Chart{Urn: u, Type: t}
	case "dataFlow":
		return &model.DataFlow{Urn: u, Type: t}
	case "dataJob":
		return &model.DataJob{Urn: u, Type: t}
	case "glossaryTerm":
		return &model.GlossaryTerm{Urn: u, Type: t}
	case "glossaryNode":
		return &model.GlossaryNode{Urn: u, Type: t}
	case "domain":
		return &model.Domain{Urn: u, Type: t}
	case "dataProduct":
		return &model.DataProduct{Urn: u, Type: t}
	case "corpGroup":
		return &model.CorpGroup{Urn: u, Type: t}
	case "mlModel":
		return &model.MLModel{Urn: u, Type: t}
	case "mlModelGroup":
		return &model.MLModelGroup{Urn: u, Type: t}
	case "mlFeatureTable":
		return &model.MLFeatureTable{Urn: u, Type: t}
	case "mlFeature":
		return &model.MLFeature{Urn: u, Type: t}
	case "mlPrimaryKey":
		return &model.MLPrimaryKey{Urn: u, Type: t}
	case "notebook":
		return &model.Notebook{Urn: u, Type: t}
	case "role":
		return &model.Role{Urn: u, Type: t}
	case "businessAttribute":
		return &model.BusinessAttribute{Urn: u, Type: t}
	case "schemaField":
		return &model.SchemaFieldEntity{Urn: u, Type: t}
	case "application":
		return &model.Application{Urn: u, Type: t}
	case "document":
		return &model.Document{Urn: u, Type: t}
	}
	// A dataset; and an entity of a type this schema has no object for,
	// whose type says what it is.
	if t == "" {
		t = model.EntityTypeOther
	}
	return &model.Dataset{Urn: u, Type: t}
}
