package reference

import "slices"

// Privileges named by the contract.
const (
	PrivGenerateAccessTokens = "GENERATE_PERSONAL_ACCESS_TOKENS"
	PrivManageAccessTokens   = "MANAGE_ACCESS_TOKENS"
	PrivManagePolicies       = "MANAGE_POLICIES"
	PrivCreateTags           = "CREATE_TAGS"
	PrivManageTags           = "MANAGE_TAGS"
	// PrivManageUserCredentials is in session.go, PrivManageUsersAndGroups
	// and PrivUpdateUsersAndGroups in native.go, with what they allow.

	PrivViewEntityPage = "VIEW_ENTITY_PAGE"
	PrivGetEntity      = "GET_ENTITY_PRIVILEGE"
	PrivEditEntity     = "EDIT_ENTITY"
	PrivDeleteEntity   = "DELETE_ENTITY"
	// PrivGetTimeseriesAspect lets its holder read an entity's timeseries
	// aspects (DataHub's "Get Timeseries Aspect API"), as EDIT_ENTITY and
	// DELETE_ENTITY do; VIEW_ENTITY_PAGE does not.
	PrivGetTimeseriesAspect = "GET_TIMESERIES_ASPECT_PRIVILEGE"
)

// PlatformPrivileges and MetadataPrivileges list every privilege the
// reference knows, by policy type.
var (
	PlatformPrivileges = []string{PrivGenerateAccessTokens, PrivManageAccessTokens, PrivManagePolicies, PrivCreateTags, PrivManageTags, PrivManageUserCredentials, PrivManageUsersAndGroups, PrivUpdateUsersAndGroups}
	MetadataPrivileges = []string{PrivViewEntityPage, PrivGetEntity, PrivEditEntity, PrivDeleteEntity, PrivGetTimeseriesAspect}
)

// Policy types and states.
const (
	PolicyPlatform = "PLATFORM"
	PolicyMetadata = "METADATA"

	PolicyActive   = "ACTIVE"
	PolicyInactive = "INACTIVE"
	PolicyDraft    = "DRAFT"
)

// Policy is DataHub's dataHubPolicyInfo aspect, with the policy's URN.
type Policy struct {
	URN         URN             `json:"-"`
	Type        string          `json:"type"`
	Name        string          `json:"displayName"`
	State       string          `json:"state"`
	Description string          `json:"description,omitempty"`
	Privileges  []string        `json:"privileges"`
	Actors      ActorFilter     `json:"actors"`
	Resources   *ResourceFilter `json:"resources,omitempty"`
	Editable    bool            `json:"editable"`
}

// ActorFilter says whom a policy applies to.
type ActorFilter struct {
	Users          []string `json:"users,omitempty"`
	Groups         []string `json:"groups,omitempty"`
	ResourceOwners bool     `json:"resourceOwners"`
	AllUsers       bool     `json:"allUsers"`
	AllGroups      bool     `json:"allGroups"`
}

// ResourceFilter says which entities a METADATA policy covers.
type ResourceFilter struct {
	Type         string   `json:"type,omitempty"`
	Resources    []string `json:"resources,omitempty"`
	AllResources bool     `json:"allResources"`
}

// appliesTo reports whether the policy's actors include user. Groups and
// resource ownership are not modelled by the reference: a policy naming only
// groups applies to nobody.
func (p Policy) appliesTo(user URN) bool {
	return p.Actors.AllUsers || slices.Contains(p.Actors.Users, user.String())
}

// covers reports whether a METADATA policy covers resource.
func (p Policy) covers(resource URN) bool {
	r := p.Resources
	if r == nil || r.AllResources {
		return true
	}
	if len(r.Resources) > 0 {
		return slices.Contains(r.Resources, resource.String())
	}
	if r.Type != "" {
		return r.Type == resource.EntityType
	}
	return true
}

// Grants reports whether the policy, as it is, gives user the privilege. For
// a platform privilege pass a zero resource.
func (p Policy) Grants(user URN, privilege string, resource URN) bool {
	if p.State != PolicyActive || !p.appliesTo(user) || !slices.Contains(p.Privileges, privilege) {
		return false
	}
	switch p.Type {
	case PolicyPlatform:
		return resource.IsZero()
	case PolicyMetadata:
		return !resource.IsZero() && p.covers(resource)
	}
	return false
}

// Validate checks a policy as a client sent it.
func (p *Policy) Validate() error {
	if p.Type != PolicyPlatform && p.Type != PolicyMetadata {
		return Errorf(EBADREQUEST, "policy type must be PLATFORM or METADATA")
	}
	if p.State != PolicyActive && p.State != PolicyInactive && p.State != PolicyDraft {
		return Errorf(EBADREQUEST, "policy state must be ACTIVE, INACTIVE or DRAFT")
	}
	if p.Name == "" {
		return Errorf(EBADREQUEST, "policy name must not be empty")
	}
	known := PlatformPrivileges
	if p.Type == PolicyMetadata {
		known = MetadataPrivileges
	}
	for _, priv := range p.Privileges {
		if !slices.Contains(known, priv) {
			return Errorf(EBADREQUEST, "privilege %q is not a %s privilege", Truncate(priv, 100), p.Type)
		}
	}
	for _, u := range p.Actors.Users {
		if _, err := ParseURN(u); err != nil {
			return err
		}
	}
	if p.Resources != nil {
		for _, r := range p.Resources.Resources {
			if _, err := ParseURN(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// BootPolicies are present at first start (SPEC.md, Policies), as DataHub's
// boot policies.json has them: the root user's two are not editable, the two
// that apply to every user are, and the METADATA ones have no resource
// filter (they cover every entity). The flag is what the API says of a
// policy; like DataHub's resolvers, the reference lets MANAGE_POLICIES
// update or delete any policy.
func BootPolicies() []Policy {
	return []Policy{
		{
			URN: URN{EntityType: EntityPolicy, ID: "0"}, Type: PolicyPlatform, State: PolicyActive, Editable: false,
			Name: "Root User - All Platform Privileges", Description: "The root user holds every platform privilege.",
			Privileges: append([]string{}, PlatformPrivileges...), Actors: ActorFilter{Users: []string{RootUser.String()}},
		},
		{
			URN: URN{EntityType: EntityPolicy, ID: "1"}, Type: PolicyMetadata, State: PolicyActive, Editable: false,
			Name: "Root User - All Metadata Privileges", Description: "The root user holds every metadata privilege on every resource.",
			Privileges: append([]string{}, MetadataPrivileges...), Actors: ActorFilter{Users: []string{RootUser.String()}},
		},
		{
			URN: URN{EntityType: EntityPolicy, ID: "7"}, Type: PolicyPlatform, State: PolicyActive, Editable: true,
			Name: "All Users - Generate Personal Access Tokens", Description: "Every user may generate personal access tokens for themself.",
			Privileges: []string{PrivGenerateAccessTokens}, Actors: ActorFilter{AllUsers: true},
		},
		{
			URN: URN{EntityType: EntityPolicy, ID: "view-entity-page-all"}, Type: PolicyMetadata, State: PolicyActive, Editable: true,
			Name: "All Users - View Entity Page", Description: "Every user may read every entity.",
			Privileges: []string{PrivViewEntityPage, PrivGetEntity, PrivGetTimeseriesAspect}, Actors: ActorFilter{AllUsers: true},
		},
	}
}
