package reference

// The DataHub whose behaviour the reference follows: the release at the
// commit of DataHub's source it was written against (upstream
// datahub-project/datahub 7e93355 of 2026-03-27, after v1.5.0 and before
// the next release; DataHub's GMS names its version by `git describe`,
// which there gives v1.5.0). /config reports it, so DataHub's SDK chooses
// what it would choose against that DataHub: from 1.0.1 on, ingestion
// through OpenAPI v3.
const (
	DataHubVersion = "v1.5.0"
	DataHubCommit  = "7e9335506742380a488172085cfbe674ceede333"
)

// The aspects of the entity types ingestion writes, with the full name of
// each aspect's record: DataHub's entity registry
// (metadata-models/src/main/resources/entity-registry.yml) and the records'
// PDL (metadata-models/src/main/pegasus/...), at DataHub commit 7e93355
// (the behaviour of DataHub v1.5.0, which /config reports). The full name
// is what DataHub's SDK looks an aspect up by (get_aspect reads
// aspect["com.linkedin.dataset.DatasetProperties"]) and what the entity
// path's snapshot keys each aspect by. An aspect that is not here is not
// one of the entity's: ingestion refuses it.
var datahubAspects = map[string]map[string]string{
	EntityDataset: {
		"access":                    "com.linkedin.common.Access",
		"applications":              "com.linkedin.application.Applications",
		"assetSettings":             "com.linkedin.settings.asset.AssetSettings",
		"browsePaths":               "com.linkedin.common.BrowsePaths",
		"browsePathsV2":             "com.linkedin.common.BrowsePathsV2",
		"container":                 "com.linkedin.container.Container",
		"dataPlatformInstance":      "com.linkedin.common.DataPlatformInstance",
		"datasetDeprecation":        "com.linkedin.dataset.DatasetDeprecation",
		"datasetKey":                "com.linkedin.metadata.key.DatasetKey",
		"datasetProfile":            "com.linkedin.dataset.DatasetProfile", // timeseries
		"datasetProperties":         "com.linkedin.dataset.DatasetProperties",
		"datasetUpstreamLineage":    "com.linkedin.dataset.DatasetUpstreamLineage",
		"datasetUsageStatistics":    "com.linkedin.dataset.DatasetUsageStatistics", // timeseries
		"deprecation":               "com.linkedin.common.Deprecation",
		"domains":                   "com.linkedin.domain.Domains",
		"editableDatasetProperties": "com.linkedin.dataset.EditableDatasetProperties",
		"editableSchemaMetadata":    "com.linkedin.schema.EditableSchemaMetadata",
		"embed":                     "com.linkedin.common.Embed",
		"forms":                     "com.linkedin.common.Forms",
		"globalTags":                "com.linkedin.common.GlobalTags",
		"glossaryTerms":             "com.linkedin.common.GlossaryTerms",
		"icebergCatalogInfo":        "com.linkedin.dataset.IcebergCatalogInfo",
		"incidentsSummary":          "com.linkedin.common.IncidentsSummary",
		"institutionalMemory":       "com.linkedin.common.InstitutionalMemory",
		"logicalParent":             "com.linkedin.logical.LogicalParent",
		"operation":                 "com.linkedin.common.Operation", // timeseries
		"ownership":                 "com.linkedin.common.Ownership",
		"partitionsSummary":         "com.linkedin.dataset.PartitionsSummary",
		"schemaMetadata":            "com.linkedin.schema.SchemaMetadata",
		"siblings":                  "com.linkedin.common.Siblings",
		"status":                    "com.linkedin.common.Status",
		"structuredProperties":      "com.linkedin.structured.StructuredProperties",
		"subTypes":                  "com.linkedin.common.SubTypes",
		"testResults":               "com.linkedin.test.TestResults",
		"upstreamLineage":           "com.linkedin.dataset.UpstreamLineage",
		"versionProperties":         "com.linkedin.common.VersionProperties",
		"viewProperties":            "com.linkedin.dataset.ViewProperties",
	},
	EntityTag: {
		"deprecation":   "com.linkedin.common.Deprecation",
		"ownership":     "com.linkedin.common.Ownership",
		"status":        "com.linkedin.common.Status",
		"tagKey":        "com.linkedin.metadata.key.TagKey",
		"tagProperties": "com.linkedin.tag.TagProperties",
		"testResults":   "com.linkedin.test.TestResults",
	},
	EntityCorpUser: {
		"corpUserCredentials":   "com.linkedin.identity.CorpUserCredentials",
		"corpUserEditableInfo":  "com.linkedin.identity.CorpUserEditableInfo",
		"corpUserInfo":          "com.linkedin.identity.CorpUserInfo",
		"corpUserKey":           "com.linkedin.metadata.key.CorpUserKey",
		"corpUserSettings":      "com.linkedin.identity.CorpUserSettings",
		"corpUserStatus":        "com.linkedin.identity.CorpUserStatus",
		"forms":                 "com.linkedin.common.Forms",
		"globalTags":            "com.linkedin.common.GlobalTags",
		"groupMembership":       "com.linkedin.identity.GroupMembership",
		"nativeGroupMembership": "com.linkedin.identity.NativeGroupMembership",
		"origin":                "com.linkedin.common.Origin",
		"roleMembership":        "com.linkedin.identity.RoleMembership",
		"slackUserInfo":         "com.linkedin.dataplatform.slack.SlackUserInfo",
		"status":                "com.linkedin.common.Status",
		"structuredProperties":  "com.linkedin.structured.StructuredProperties",
		"subTypes":              "com.linkedin.common.SubTypes",
		"testResults":           "com.linkedin.test.TestResults",
	},
}

// timeseriesAspects are written like the others but, as in DataHub (which
// keeps them in its search index, not with the entity), never shown by
// the entity reads.
var timeseriesAspects = map[string]bool{
	"datasetProfile":         true,
	"datasetUsageStatistics": true,
	"operation":              true,
}

// hiddenAspects are never shown and never written through the entity
// paths and ingestion: a user's password is set only by its own operations.
var hiddenAspects = map[string]bool{
	AspectCorpUserCredentials: true,
}
