package sdkclient

// AspectType is what the SDK knows of an aspect class (the generated
// classes of metadata/schema_classes.py): its name, the full name of its
// record with ".pegasus2avro" taken out (get_aspect looks the aspect up
// under it), whether it is a timeseries aspect, and the fields its
// from_obj cannot do without (the record's fields without a default).
type AspectType struct {
	Name       string
	FullName   string
	Timeseries bool
	Required   []string
}

// The aspect classes this client reads, from DataHub's PDL at 7e93355
// (metadata-models/src/main/pegasus/...).
var (
	DatasetKey          = AspectType{Name: "datasetKey", FullName: "com.linkedin.metadata.key.DatasetKey", Required: []string{"platform", "name", "origin"}}
	DatasetProperties   = AspectType{Name: "datasetProperties", FullName: "com.linkedin.dataset.DatasetProperties"}
	InstitutionalMemory = AspectType{Name: "institutionalMemory", FullName: "com.linkedin.common.InstitutionalMemory", Required: []string{"elements"}}
	Ownership           = AspectType{Name: "ownership", FullName: "com.linkedin.common.Ownership", Required: []string{"owners"}}
	Status              = AspectType{Name: "status", FullName: "com.linkedin.common.Status"}
	GlobalTags          = AspectType{Name: "globalTags", FullName: "com.linkedin.common.GlobalTags", Required: []string{"tags"}}
	TagKey              = AspectType{Name: "tagKey", FullName: "com.linkedin.metadata.key.TagKey", Required: []string{"name"}}
	TagProperties       = AspectType{Name: "tagProperties", FullName: "com.linkedin.tag.TagProperties", Required: []string{"name"}}
	CorpUserKey         = AspectType{Name: "corpUserKey", FullName: "com.linkedin.metadata.key.CorpUserKey", Required: []string{"username"}}
	CorpUserInfo        = AspectType{Name: "corpUserInfo", FullName: "com.linkedin.identity.CorpUserInfo", Required: []string{"active"}}
	DatasetProfile      = AspectType{Name: "datasetProfile", FullName: "com.linkedin.dataset.DatasetProfile", Timeseries: true, Required: []string{"timestampMillis"}}

	ContainerKey               = AspectType{Name: "containerKey", FullName: "com.linkedin.metadata.key.ContainerKey"}
	ContainerProperties        = AspectType{Name: "containerProperties", FullName: "com.linkedin.container.ContainerProperties", Required: []string{"name"}}
	DataJobKey                 = AspectType{Name: "dataJobKey", FullName: "com.linkedin.metadata.key.DataJobKey", Required: []string{"flow", "jobId"}}
	DatahubIngestionCheckpoint = AspectType{Name: "datahubIngestionCheckpoint", FullName: "com.linkedin.datajob.datahub.DatahubIngestionCheckpoint", Timeseries: true, Required: []string{"timestampMillis", "pipelineName", "platformInstanceId", "config", "state", "runId"}}
	IngestionSourceKey         = AspectType{Name: "dataHubIngestionSourceKey", FullName: "com.linkedin.metadata.key.DataHubIngestionSourceKey", Required: []string{"id"}}
	IngestionSourceInfo        = AspectType{Name: "dataHubIngestionSourceInfo", FullName: "com.linkedin.ingestion.DataHubIngestionSourceInfo", Required: []string{"name", "type", "config"}}
	ExecutionRequestKey        = AspectType{Name: "dataHubExecutionRequestKey", FullName: "com.linkedin.metadata.key.ExecutionRequestKey", Required: []string{"id"}}
	ExecutionRequestInput      = AspectType{Name: "dataHubExecutionRequestInput", FullName: "com.linkedin.execution.ExecutionRequestInput", Required: []string{"task", "args", "executorId", "source", "requestedAt"}}
	ExecutionRequestResult     = AspectType{Name: "dataHubExecutionRequestResult", FullName: "com.linkedin.execution.ExecutionRequestResult", Required: []string{"status"}}
)

// KeyAspects is KEY_ASPECTS (schema_classes.py), by entity type, for the
// entity types this client knows: exists() reads the key aspect.
var KeyAspects = map[string]AspectType{
	"dataset":                 DatasetKey,
	"tag":                     TagKey,
	"corpuser":                CorpUserKey,
	"container":               ContainerKey,
	"dataJob":                 DataJobKey,
	"dataHubIngestionSource":  IngestionSourceKey,
	"dataHubExecutionRequest": ExecutionRequestKey,
}

// aspectNameMap is ASPECT_NAME_MAP (schema_classes.py) for the aspects
// this client knows; get_entity_as_mcps skips, with a warning, an aspect
// whose name it does not know.
var aspectNameMap = func() map[string]AspectType {
	m := map[string]AspectType{}
	for _, t := range []AspectType{DatasetKey, DatasetProperties, InstitutionalMemory, Ownership, Status, GlobalTags, TagKey, TagProperties, CorpUserKey, CorpUserInfo, DatasetProfile,
		ContainerKey, ContainerProperties, DataJobKey, DatahubIngestionCheckpoint, IngestionSourceKey, IngestionSourceInfo, ExecutionRequestKey, ExecutionRequestInput, ExecutionRequestResult} {
		m[t.Name] = t
	}
	return m
}()
