package graph

import (
	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/graph/model"
)

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func urnString(u reference.URN) *string {
	s := u.String()
	return &s
}

// corpUserParts are the parts of a user's model, allocated as one: every
// `me` makes one.
type corpUserParts struct {
	user                                model.CorpUser
	info                                model.CorpUserInfo
	properties                          model.CorpUserProperties
	status                              model.CorpUserStatus
	displayName, email, fullName, title string
}

func corpUser(u *reference.CorpUser) *model.CorpUser {
	p := &corpUserParts{status: model.CorpUserStatusActive, displayName: u.DisplayName, email: u.Email, fullName: u.FullName, title: u.Title}
	if u.Suspended {
		p.status = model.CorpUserStatusSuspended
	}
	// optional, without a copy each: info and properties share them.
	opt := func(s *string) *string {
		if *s == "" {
			return nil
		}
		return s
	}
	p.info = model.CorpUserInfo{Active: u.Active, DisplayName: opt(&p.displayName), Email: opt(&p.email), FullName: opt(&p.fullName), Title: opt(&p.title)}
	p.properties = model.CorpUserProperties{
		Active: u.Active, DisplayName: p.info.DisplayName, Email: p.info.Email,
		Title: p.info.Title, FullName: p.info.FullName, ManagerURN: managerURN(u.Manager),
	}
	p.user = model.CorpUser{Urn: u.URN.String(), Type: model.EntityTypeCorpUser, Username: u.Username, Status: &p.status, Info: &p.info, Properties: &p.properties}
	return &p.user
}

func managerURN(u reference.URN) string {
	if u.IsZero() {
		return ""
	}
	return u.String()
}

func tokenMetadata(t reference.AccessTokenInfo) *model.AccessTokenMetadata {
	return &model.AccessTokenMetadata{
		Urn: t.URN().String(), Type: model.EntityTypeAccessToken, ID: t.ID, Name: t.Name,
		Description: optional(t.Description), ActorUrn: t.ActorURN, OwnerUrn: t.OwnerURN,
		CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt,
	}
}

func policy(p reference.Policy) *model.Policy {
	out := &model.Policy{
		Urn: p.URN.String(), Type: model.PolicyType(p.Type), Name: p.Name, State: model.PolicyState(p.State),
		Description: optional(p.Description), Editable: p.Editable, Privileges: append([]string{}, p.Privileges...),
		Actors: &model.ActorFilter{
			Users: p.Actors.Users, Groups: p.Actors.Groups, ResourceOwners: p.Actors.ResourceOwners,
			AllUsers: p.Actors.AllUsers, AllGroups: p.Actors.AllGroups,
		},
	}
	if r := p.Resources; r != nil {
		all := r.AllResources
		out.Resources = &model.ResourceFilter{Type: optional(r.Type), Resources: r.Resources, AllResources: &all}
	}
	return out
}

func policyInput(in model.PolicyUpdateInput) reference.Policy {
	p := reference.Policy{
		Type: string(in.Type), Name: in.Name, State: string(in.State), Description: deref(in.Description),
		Privileges: append([]string{}, in.Privileges...),
	}
	if a := in.Actors; a != nil {
		p.Actors = reference.ActorFilter{Users: a.Users, Groups: a.Groups, ResourceOwners: a.ResourceOwners, AllUsers: a.AllUsers, AllGroups: a.AllGroups}
	}
	if r := in.Resources; r != nil {
		p.Resources = &reference.ResourceFilter{Type: deref(r.Type), Resources: r.Resources, AllResources: deref(r.AllResources)}
	}
	return p
}
