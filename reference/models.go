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
