package reference

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

// TestRegistryIsDataHubs: the embedded registry is one run of
// tools/registrygen (make registry) over DataHub's source at the commit
// the reference follows: models.json names that commit and the SHA-256 of
// the entity-registry.yml beside it, and describes every aspect the
// registry names. make check-registry runs the generator again and
// compares, where DataHub's source is at hand.
func TestRegistryIsDataHubs(t *testing.T) {
	yml, err := registryFiles.ReadFile("registry/entity-registry.yml")
	if err != nil {
		t.Fatal(err)
	}
	js, err := registryFiles.ReadFile("registry/models.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Commit string `json:"datahubCommit"`
		SHA256 string `json:"registrySHA256"`
	}
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	if m.Commit != DataHubCommit {
		t.Errorf("models.json was generated from DataHub %s, not %s (DataHubCommit)", m.Commit, DataHubCommit)
	}
	sum := sha256.Sum256(yml)
	if got := hex.EncodeToString(sum[:]); got != m.SHA256 {
		t.Errorf("entity-registry.yml has SHA-256 %s; models.json was generated from one of %s: run make registry", got, m.SHA256)
	}
	if _, err := loadRegistry(); err != nil {
		t.Fatal(err)
	}
	// What the reference knew by hand before the registry, which DataHub's
	// SDK reads by these names.
	for _, c := range []struct{ entity, aspect, class string }{
		{"dataset", "datasetProperties", "com.linkedin.dataset.DatasetProperties"},
		{"dataset", "datasetKey", "com.linkedin.metadata.key.DatasetKey"},
		{"dataset", "institutionalMemory", "com.linkedin.common.InstitutionalMemory"},
		{"tag", "tagProperties", "com.linkedin.tag.TagProperties"},
		{"corpuser", "corpUserInfo", "com.linkedin.identity.CorpUserInfo"},
		{"dataHubPolicy", "dataHubPolicyInfo", "com.linkedin.policy.DataHubPolicyInfo"},
		{"dataHubAccessToken", "dataHubAccessTokenInfo", "com.linkedin.access.token.DataHubAccessTokenInfo"},
		{"container", "containerProperties", "com.linkedin.container.ContainerProperties"},
		{"dataJob", "datahubIngestionCheckpoint", "com.linkedin.datajob.datahub.DatahubIngestionCheckpoint"},
	} {
		spec := lookupEntity(c.entity)
		if spec == nil {
			t.Errorf("the registry has no entity type %s", c.entity)
			continue
		}
		if got := spec.className(c.aspect); got != c.class {
			t.Errorf("%s's %s is %q, want %s", c.entity, c.aspect, got, c.class)
		}
	}
	for _, name := range []string{"datasetProfile", "datasetUsageStatistics", "operation", "datahubIngestionCheckpoint"} {
		if !isTimeseries(name) {
			t.Errorf("%s is not a timeseries aspect", name)
		}
	}
	if isTimeseries("datasetProperties") {
		t.Error("datasetProperties is a timeseries aspect")
	}
	if s := lookupEntity("dataset").snapshot; s != "com.linkedin.metadata.snapshot.DatasetSnapshot" {
		t.Errorf("the dataset snapshot is %s", s)
	}
	if s := lookupEntity("dataHubAccessToken"); s.snapshot != "com.linkedin.metadata.snapshot.DataHubAccessTokenSnapshot" || s.datahubSnapshot {
		t.Errorf("the access token snapshot is %s (DataHub's: %v)", s.snapshot, s.datahubSnapshot)
	}
	// Hidden aspects are the entities' own, so that hiding them means
	// something.
	for aspect := range hiddenAspects {
		if theRegistry.aspects[aspect] == nil {
			t.Errorf("the hidden aspect %s is no aspect of the registry", aspect)
		}
	}
	for entity := range notIngestible {
		if lookupEntity(entity) == nil {
			t.Errorf("the entity type %s kept from ingestion is not in the registry", entity)
		}
	}
}
