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

// TestPrivilegeScope: a refused write says whether the privileges it
// names are the platform's or the entity's, however many it names.
func TestPrivilegeScope(t *testing.T) {
	for _, c := range []struct {
		privileges []string
		platform   bool
		want       string
	}{
		{[]string{"EDIT_ENTITY"}, false, "on it is"},
		{[]string{"EDIT_ENTITY", "EDIT_ENTITY_TAGS"}, false, "on it is"},
		{[]string{"MANAGE_USERS_AND_GROUPS"}, true, "(a platform privilege) is"},
		{[]string{"MANAGE_USERS_AND_GROUPS", "MANAGE_POLICIES"}, true, "(platform privileges) is"},
	} {
		if got := privilegeScope(c.privileges, c.platform); got != c.want {
			t.Errorf("privilegeScope(%v, platform %v) = %q, want %q", c.privileges, c.platform, got, c.want)
		}
	}
}
