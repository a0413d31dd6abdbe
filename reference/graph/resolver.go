// Package graph serves the GraphQL API with gqlgen. Resolvers are thin: they
// decode arguments, call one reference.Service method and encode the answer.
package graph

//go:generate go tool gqlgen generate --config gqlgen.yml

import (
	"context"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/graph/model"
)

// Resolver is the root resolver.
type Resolver struct {
	Service *reference.Service
	Version string
}

// Query returns the query resolver.
func (r *Resolver) Query() QueryResolver { return &queryResolver{r} }

// Mutation returns the mutation resolver.
func (r *Resolver) Mutation() MutationResolver { return &mutationResolver{r} }

// CorpUserProperties returns the resolver of a user's properties.
func (r *Resolver) CorpUserProperties() CorpUserPropertiesResolver {
	return &corpUserPropertiesResolver{r}
}

type queryResolver struct{ *Resolver }

type corpUserPropertiesResolver struct{ *Resolver }

// Manager loads the user's manager when a query asks for it; null when the
// user has none, or when no such user exists.
func (r *corpUserPropertiesResolver) Manager(ctx context.Context, p *model.CorpUserProperties) (*model.CorpUser, error) {
	if p.ManagerURN == "" {
		return nil, nil
	}
	return r.Query().CorpUser(ctx, p.ManagerURN)
}

type mutationResolver struct{ *Resolver }

func (r *queryResolver) Me(ctx context.Context) (*model.AuthenticatedUser, error) {
	u, privs, err := r.Service.Me(ctx)
	if err != nil {
		return nil, err
	}
	// One allocation for the answer and its privileges.
	me := &struct {
		user  model.AuthenticatedUser
		privs model.PlatformPrivileges
	}{privs: model.PlatformPrivileges{
		GeneratePersonalAccessTokens: privs[reference.PrivGenerateAccessTokens],
		ManageTokens:                 privs[reference.PrivManageAccessTokens],
		ManagePolicies:               privs[reference.PrivManagePolicies],
		CreateTags:                   privs.CanCreateTags(),
		ManageTags:                   privs[reference.PrivManageTags],
		ManageIdentities:             privs[reference.PrivManageUsersAndGroups],
		ManageUserCredentials:        privs[reference.PrivManageUserCredentials],
	}}
	me.user = model.AuthenticatedUser{CorpUser: corpUser(u), PlatformPrivileges: &me.privs}
	return &me.user, nil
}

func (r *queryResolver) AppConfig(ctx context.Context) (*model.AppConfig, error) {
	return &model.AppConfig{
		AppVersion: &r.Version,
		AuthConfig: &model.AuthConfig{TokenAuthEnabled: r.Service.AuthEnabled()},
	}, nil
}

func (r *queryResolver) ListAccessTokens(ctx context.Context, in model.ListAccessTokenInput) (*model.ListAccessTokenResult, error) {
	filters, exclude := map[string][]string{}, map[string][]string{}
	var criteria []reference.Criterion
	for _, f := range in.Filters {
		if f == nil {
			continue
		}
		values := f.Values
		if f.Value != nil {
			values = append(values, *f.Value)
		}
		if f.Condition != nil && *f.Condition != model.FilterOperatorEqual && *f.Condition != model.FilterOperatorIn {
			criteria = append(criteria, reference.Criterion{Field: f.Field, Condition: string(*f.Condition), Values: values, Negated: deref(f.Negated)})
			continue
		}
		into := filters
		if deref(f.Negated) {
			into = exclude
		}
		into[f.Field] = append(into[f.Field], values...)
	}
	start, count := deref(in.Start), deref(in.Count)
	tokens, total, err := r.Service.ListAccessTokens(ctx, reference.ListAccessTokensInput{Start: start, Count: count, Filters: filters, Exclude: exclude, Criteria: criteria})
	if err != nil {
		return nil, err
	}
	out := &model.ListAccessTokenResult{Start: start, Count: len(tokens), Total: total, Tokens: []*model.AccessTokenMetadata{}}
	for _, t := range tokens {
		out.Tokens = append(out.Tokens, tokenMetadata(t))
	}
	return out, nil
}

func (r *queryResolver) GetAccessTokenMetadata(ctx context.Context, token string) (*model.AccessTokenMetadata, error) {
	t, err := r.Service.AccessTokenMetadata(ctx, token)
	if err != nil {
		return nil, err
	}
	return tokenMetadata(t), nil
}

func (r *queryResolver) Tag(ctx context.Context, urn string) (*model.Tag, error) {
	t, err := r.Service.Tag(ctx, urn)
	if err != nil || t == nil {
		return nil, err
	}
	desc := optional(t.Description)
	return &model.Tag{
		Urn: t.URN.String(), Type: model.EntityTypeTag, Name: t.Name, Description: desc,
		Properties: &model.TagProperties{Name: t.Name, Description: desc},
	}, nil
}

func (r *queryResolver) ListPolicies(ctx context.Context, in model.ListPoliciesInput) (*model.ListPoliciesResult, error) {
	start, count := deref(in.Start), deref(in.Count)
	policies, total, err := r.Service.ListPolicies(ctx, start, count, deref(in.Query))
	if err != nil {
		return nil, err
	}
	out := &model.ListPoliciesResult{Start: start, Count: len(policies), Total: total, Policies: []*model.Policy{}}
	for _, p := range policies {
		out.Policies = append(out.Policies, policy(p))
	}
	return out, nil
}

func (r *queryResolver) CorpUser(ctx context.Context, urn string) (*model.CorpUser, error) {
	u, err := r.Service.CorpUser(ctx, urn)
	if err != nil || u == nil {
		return nil, err
	}
	return corpUser(u), nil
}

func (r *queryResolver) ListUsers(ctx context.Context, in model.ListUsersInput) (*model.ListUsersResult, error) {
	start, count := deref(in.Start), deref(in.Count)
	users, total, err := r.Service.ListUsers(ctx, start, count, deref(in.Query))
	if err != nil {
		return nil, err
	}
	out := &model.ListUsersResult{Start: start, Count: len(users), Total: total, Users: []*model.CorpUser{}}
	for i := range users {
		out.Users = append(out.Users, corpUser(&users[i]))
	}
	return out, nil
}

func (r *queryResolver) GetInviteToken(ctx context.Context, in model.GetInviteTokenInput) (*model.InviteToken, error) {
	token, err := r.Service.GetInviteToken(ctx, deref(in.RoleUrn))
	if err != nil {
		return nil, err
	}
	return &model.InviteToken{InviteToken: token}, nil
}

func (r *mutationResolver) RemoveUser(ctx context.Context, urn string) (*bool, error) {
	if err := r.Service.RemoveUser(ctx, urn); err != nil {
		return nil, err
	}
	ok := true
	return &ok, nil
}

func (r *mutationResolver) CreateInviteToken(ctx context.Context, in model.CreateInviteTokenInput) (*model.InviteToken, error) {
	token, err := r.Service.CreateInviteToken(ctx, deref(in.RoleUrn))
	if err != nil {
		return nil, err
	}
	return &model.InviteToken{InviteToken: token}, nil
}

func (r *mutationResolver) CreateAccessToken(ctx context.Context, in model.CreateAccessTokenInput) (*model.AccessToken, error) {
	raw, info, err := r.Service.CreateAccessToken(ctx, reference.CreateAccessTokenInput{
		ActorURN: in.ActorUrn, Duration: string(in.Duration), Name: in.Name, Description: deref(in.Description),
	})
	if err != nil {
		return nil, err
	}
	return &model.AccessToken{AccessToken: raw, Metadata: tokenMetadata(info)}, nil
}

func (r *mutationResolver) RevokeAccessToken(ctx context.Context, tokenID string) (bool, error) {
	if err := r.Service.RevokeAccessToken(ctx, tokenID); err != nil {
		return false, err
	}
	return true, nil
}

func (r *mutationResolver) CreateTag(ctx context.Context, in model.CreateTagInput) (*string, error) {
	urn, err := r.Service.CreateTag(ctx, reference.CreateTagInput{ID: deref(in.ID), Name: in.Name, Description: deref(in.Description)})
	if err != nil {
		return nil, err
	}
	return urnString(urn), nil
}

func (r *mutationResolver) DeleteTag(ctx context.Context, urn string) (*bool, error) {
	ok, err := r.Service.DeleteTag(ctx, urn)
	if err != nil {
		return nil, err
	}
	return &ok, nil
}

func (r *mutationResolver) CreatePolicy(ctx context.Context, in model.PolicyUpdateInput) (*string, error) {
	urn, err := r.Service.CreatePolicy(ctx, policyInput(in))
	if err != nil {
		return nil, err
	}
	return urnString(urn), nil
}

func (r *mutationResolver) UpdatePolicy(ctx context.Context, urn string, in model.PolicyUpdateInput) (*string, error) {
	u, err := r.Service.UpdatePolicy(ctx, urn, policyInput(in))
	if err != nil {
		return nil, err
	}
	return urnString(u), nil
}

func (r *mutationResolver) DeletePolicy(ctx context.Context, urn string) (*string, error) {
	u, err := r.Service.DeletePolicy(ctx, urn)
	if err != nil {
		return nil, err
	}
	return urnString(u), nil
}

func (r *mutationResolver) CreateNativeUserResetToken(ctx context.Context, in model.CreateNativeUserResetTokenInput) (*model.ResetToken, error) {
	token, err := r.Service.CreateNativeUserResetToken(ctx, in.UserUrn)
	if err != nil {
		return nil, err
	}
	return &model.ResetToken{ResetToken: token}, nil
}
