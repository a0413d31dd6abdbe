package reference

import "testing"

// TestPolicyCoversSomeAndEvery: what a write's URL says is enough to
// refuse it (no EDIT_ENTITY on any entity of the type), or to let its
// body through unchecked (EDIT_ENTITY on every one), from both sides.
func TestPolicyCoversSomeAndEvery(t *testing.T) {
	for _, c := range []struct {
		name        string
		resources   *ResourceFilter
		entityType  string
		some, every bool
	}{
		{"no filter", nil, "dataset", true, true},
		{"all resources", &ResourceFilter{AllResources: true}, "dataset", true, true},
		{"the type", &ResourceFilter{Type: "dataset"}, "dataset", true, true},
		{"another type", &ResourceFilter{Type: "tag"}, "dataset", false, false},
		{"the type, asked for any type", &ResourceFilter{Type: "dataset"}, "", true, false},
		{"one dataset", &ResourceFilter{Resources: []string{"urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)"}}, "dataset", true, false},
		{"one dataset, asked for tags", &ResourceFilter{Resources: []string{"urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)"}}, "tag", false, false},
		{"one dataset, asked for any type", &ResourceFilter{Resources: []string{"urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)"}}, "", true, false},
		{"one dataset and the type", &ResourceFilter{Type: "dataset", Resources: []string{"urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)"}}, "dataset", true, false},
	} {
		p := Policy{Type: PolicyMetadata, State: PolicyActive, Resources: c.resources}
		if some, every := p.coversSomeOf(c.entityType), p.coversEveryOf(c.entityType); some != c.some || every != c.every {
			t.Errorf("%s: covers some %v, every %v; want %v, %v", c.name, some, every, c.some, c.every)
		}
	}
}
