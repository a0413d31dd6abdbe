package postgres_test

import (
	"testing"

	"github.com/catalogspec/catalogspec/reference"
)

// TestTimeseriesAspectsAreNeverShown: each timeseries aspect of a dataset
// is taken by ingestion but, as in DataHub (which keeps them in its search
// index, not with the entity), never shown by the entity reads.
func TestTimeseriesAspectsAreNeverShown(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"datasetProfile", "datasetUsageStatistics", "operation"} {
		t.Run(name, func(t *testing.T) {
			d := dataset()
			if err := f.svc.IngestProposals(root, []reference.Proposal{
				proposal(d, "datasetProperties", `{"description":"d"}`),
				proposal(d, name, `{"timestampMillis":1}`),
			}); err != nil {
				t.Fatal(err)
			}
			v2, err := f.svc.EntityV2(root, d.String(), nil, true)
			if err != nil {
				t.Fatal(err)
			}
			v3, err := f.svc.EntityV3(root, "dataset", d.String(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, as := range [][]reference.EntityAspect{v2.Aspects, v3.Aspects} {
				for _, a := range as {
					if a.Name == name {
						t.Errorf("an entity read shows the timeseries aspect %s: %s", name, a.Value)
					}
				}
			}
			if _, err := f.svc.ReadAspect(root, d.String(), name, 0); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
				t.Errorf("ReadAspect of %s: %v, want NOT_FOUND", name, err)
			}
		})
	}
}
