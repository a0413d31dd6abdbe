package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/jwt"
)

// faultyStore is the test database with one of its calls made to go wrong:
// the call numbered failAt (from 1) answers as a store that has gone away,
// and before, when set, runs just ahead of the call numbered beforeAt. It
// counts the calls so that a test can try each one in turn.
type faultyStore struct {
	reference.Store
	failAt, beforeAt int
	before           func()
	calls            []string
}

func (s *faultyStore) call(method string) error {
	s.calls = append(s.calls, method)
	n := len(s.calls)
	if n == s.beforeAt && s.before != nil {
		s.before()
	}
	if n == s.failAt {
		return reference.ErrUnavailable
	}
	return nil
}

func (s *faultyStore) Aspects(ctx context.Context, urn reference.URN) ([]reference.Aspect, error) {
	if err := s.call("Aspects"); err != nil {
		return nil, err
	}
	return s.Store.Aspects(ctx, urn)
}

func (s *faultyStore) Aspect(ctx context.Context, urn reference.URN, name string) (reference.Aspect, error) {
	if err := s.call("Aspect"); err != nil {
		return reference.Aspect{}, err
	}
	return s.Store.Aspect(ctx, urn, name)
}

func (s *faultyStore) CreateEntity(ctx context.Context, aspects []reference.Aspect) error {
	if err := s.call("CreateEntity"); err != nil {
		return err
	}
	return s.Store.CreateEntity(ctx, aspects)
}

func (s *faultyStore) UpsertAspect(ctx context.Context, a reference.Aspect) error {
	if err := s.call("UpsertAspect"); err != nil {
		return err
	}
	return s.Store.UpsertAspect(ctx, a)
}

func (s *faultyStore) WriteAspects(ctx context.Context, upserts, keys []reference.Aspect, series []reference.TimeseriesValue) error {
	if err := s.call("WriteAspects"); err != nil {
		return err
	}
	return s.Store.WriteAspects(ctx, upserts, keys, series)
}

func (s *faultyStore) ReplaceAspect(ctx context.Context, a reference.Aspect) error {
	if err := s.call("ReplaceAspect"); err != nil {
		return err
	}
	return s.Store.ReplaceAspect(ctx, a)
}

func (s *faultyStore) DeleteEntity(ctx context.Context, urn reference.URN) (bool, error) {
	if err := s.call("DeleteEntity"); err != nil {
		return false, err
	}
	return s.Store.DeleteEntity(ctx, urn)
}

func (s *faultyStore) ListAspects(ctx context.Context, f reference.Filter) ([]reference.Aspect, int, error) {
	if err := s.call("ListAspects"); err != nil {
		return nil, 0, err
	}
	return s.Store.ListAspects(ctx, f)
}

func (s *faultyStore) Secret(ctx context.Context, name string, generate func() ([]byte, error)) ([]byte, error) {
	if err := s.call("Secret"); err != nil {
		return nil, err
	}
	return s.Store.Secret(ctx, name, generate)
}

func (s *faultyStore) CreateSession(ctx context.Context, sess reference.Session) error {
	if err := s.call("CreateSession"); err != nil {
		return err
	}
	return s.Store.CreateSession(ctx, sess)
}

func (s *faultyStore) Session(ctx context.Context, id string) (reference.Session, error) {
	if err := s.call("Session"); err != nil {
		return reference.Session{}, err
	}
	return s.Store.Session(ctx, id)
}

func (s *faultyStore) DeleteSession(ctx context.Context, id string) error {
	if err := s.call("DeleteSession"); err != nil {
		return err
	}
	return s.Store.DeleteSession(ctx, id)
}

func (s *faultyStore) EndSessions(ctx context.Context, actorURN string, keep int) error {
	if err := s.call("EndSessions"); err != nil {
		return err
	}
	return s.Store.EndSessions(ctx, actorURN, keep)
}

func (s *faultyStore) RemoveUser(ctx context.Context, user reference.URN) (bool, error) {
	if err := s.call("RemoveUser"); err != nil {
		return false, err
	}
	return s.Store.RemoveUser(ctx, user)
}

func (s *faultyStore) CreateUserEntity(ctx context.Context, user reference.URN, aspects []reference.Aspect) error {
	if err := s.call("CreateUserEntity"); err != nil {
		return err
	}
	return s.Store.CreateUserEntity(ctx, user, aspects)
}

func (s *faultyStore) ReplaceAspectIf(ctx context.Context, a reference.Aspect, field, want string) (bool, error) {
	if err := s.call("ReplaceAspectIf"); err != nil {
		return false, err
	}
	return s.Store.ReplaceAspectIf(ctx, a, field, want)
}

// operation is one call of the service, with what it needs made fresh
// (through the healthy service) for every attempt.
type operation struct {
	name string
	// prepare makes what the call needs and returns the call.
	prepare func(t *testing.T, f *fixture) func(svc *reference.Service) error
}

// midRequestOperations are the service's operations that make more than one
// store call, each run by a caller that takes the path through all of them.
func midRequestOperations() []operation {
	tagInput := func() reference.CreateTagInput {
		return reference.CreateTagInput{ID: "t-" + uuid.NewString()[:8], Name: "n"}
	}
	newTag := func(t *testing.T, f *fixture) reference.URN {
		t.Helper()
		urn, err := f.svc.CreateTag(root, tagInput())
		if err != nil {
			t.Fatal(err)
		}
		return urn
	}
	return []operation{
		{"Me", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			return func(svc *reference.Service) error { _, _, err := svc.Me(as(u)); return err }
		}},
		{"Authenticate", func(t *testing.T, f *fixture) func(*reference.Service) error {
			raw, _ := f.token(t, f.user(t), "ONE_HOUR")
			return func(svc *reference.Service) error { _, err := svc.Authenticate(context.Background(), raw); return err }
		}},
		{"Authenticate a session", func(t *testing.T, f *fixture) func(*reference.Service) error {
			_, raw, _ := f.signedIn(t)
			return func(svc *reference.Service) error { _, err := svc.Authenticate(context.Background(), raw); return err }
		}},
		{"SignIn", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.nativeUser(t, "pw")
			return func(svc *reference.Service) error {
				_, _, err := svc.SignIn(context.Background(), u.ID, "pw")
				return err
			}
		}},
		{"CreateNativeUserResetToken", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.nativeUser(t, "pw")
			return func(svc *reference.Service) error {
				_, err := svc.CreateNativeUserResetToken(root, u.String())
				return err
			}
		}},
		{"ResetNativeUserCredentials", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.nativeUser(t, "pw")
			reset, err := f.svc.CreateNativeUserResetToken(root, u.String())
			if err != nil {
				t.Fatal(err)
			}
			return func(svc *reference.Service) error {
				return svc.ResetNativeUserCredentials(context.Background(), u.ID, "pw", reset)
			}
		}},
		{"ActorFor", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			return func(svc *reference.Service) error {
				_, err := svc.ActorFor(context.Background(), u.String())
				return err
			}
		}},
		{"CorpUser", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, other := f.user(t), f.user(t)
			return func(svc *reference.Service) error { _, err := svc.CorpUser(as(u), other.String()); return err }
		}},
		{"CreateTag by a holder of CREATE_TAGS", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			f.grant(t, u, reference.PrivCreateTags)
			return func(svc *reference.Service) error { _, err := svc.CreateTag(as(u), tagInput()); return err }
		}},
		{"Tag", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, tag := f.user(t), newTag(t, f)
			return func(svc *reference.Service) error { _, err := svc.Tag(as(u), tag.String()); return err }
		}},
		{"DeleteTag by a holder of MANAGE_TAGS", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, tag := f.user(t), newTag(t, f)
			f.grant(t, u, reference.PrivManageTags)
			return func(svc *reference.Service) error { _, err := svc.DeleteTag(as(u), tag.String()); return err }
		}},
		{"DeleteTag by a holder of DELETE_ENTITY on the tag", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, tag := f.user(t), newTag(t, f)
			f.grantOn(t, u, tag, reference.PrivDeleteEntity)
			return func(svc *reference.Service) error { _, err := svc.DeleteTag(as(u), tag.String()); return err }
		}},
		{"CreateAccessToken for oneself", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			f.grant(t, u, reference.PrivGenerateAccessTokens)
			return func(svc *reference.Service) error {
				_, _, err := svc.CreateAccessToken(as(u), reference.CreateAccessTokenInput{ActorURN: u.String(), Duration: "ONE_HOUR", Name: "t"})
				return err
			}
		}},
		{"ListAccessTokens of oneself", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			f.grant(t, u, reference.PrivGenerateAccessTokens)
			f.token(t, u, "ONE_HOUR")
			return func(svc *reference.Service) error {
				_, _, err := svc.ListAccessTokens(as(u), reference.ListAccessTokensInput{Count: 10, Filters: map[string][]string{"ownerUrn": {u.String()}}})
				return err
			}
		}},
		{"RevokeAccessToken by its owner", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			f.grant(t, u, reference.PrivGenerateAccessTokens)
			_, info, err := f.svc.CreateAccessToken(as(u), reference.CreateAccessTokenInput{ActorURN: u.String(), Duration: "ONE_HOUR", Name: "t"})
			if err != nil {
				t.Fatal(err)
			}
			return func(svc *reference.Service) error { return svc.RevokeAccessToken(as(u), info.ID) }
		}},
		{"AccessTokenMetadata by a manager", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			f.grant(t, u, reference.PrivManageAccessTokens)
			raw, _ := f.token(t, f.user(t), "ONE_HOUR")
			return func(svc *reference.Service) error { _, err := svc.AccessTokenMetadata(as(u), raw); return err }
		}},
		{"CreatePolicy", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			f.grant(t, u, reference.PrivManagePolicies)
			return func(svc *reference.Service) error { _, err := svc.CreatePolicy(as(u), platformPolicy(u)); return err }
		}},
		{"UpdatePolicy", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			f.grant(t, u, reference.PrivManagePolicies)
			p := f.grant(t, f.user(t), reference.PrivCreateTags)
			return func(svc *reference.Service) error {
				_, err := svc.UpdatePolicy(as(u), p.String(), platformPolicy(u))
				return err
			}
		}},
		{"DeletePolicy", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			f.grant(t, u, reference.PrivManagePolicies)
			p := f.grant(t, f.user(t), reference.PrivCreateTags)
			return func(svc *reference.Service) error { _, err := svc.DeletePolicy(as(u), p.String()); return err }
		}},
		{"ListPolicies", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			f.grant(t, u, reference.PrivManagePolicies)
			return func(svc *reference.Service) error { _, _, err := svc.ListPolicies(as(u), 0, 5, ""); return err }
		}},
		{"IngestProposal of a new user", func(t *testing.T, f *fixture) func(*reference.Service) error {
			return func(svc *reference.Service) error {
				u := reference.UserURN("u-" + uuid.NewString()[:8])
				p := reference.Proposal{EntityType: u.EntityType, EntityURN: u.String(), ChangeType: "UPSERT", AspectName: "corpUserInfo",
					Aspect: &reference.GenericAspect{Value: `{"active":true}`, ContentType: "application/json"}}
				_, err := svc.IngestProposal(root, p)
				return err
			}
		}},
		{"IngestProposals by a holder of EDIT_ENTITY on each dataset", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, a, b := f.user(t), dataset(), dataset()
			f.grantOn(t, u, a, reference.PrivEditEntity)
			f.grantOn(t, u, b, reference.PrivEditEntity)
			return func(svc *reference.Service) error {
				return svc.IngestProposals(as(u), []reference.Proposal{proposal(a, "datasetProperties", `{"description":"a"}`), proposal(b, "status", `{"removed":false}`)})
			}
		}},
		{"ReadAspect by a user with VIEW_ENTITY_PAGE", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, tag := f.user(t), newTag(t, f)
			f.grantOn(t, u, tag, reference.PrivViewEntityPage)
			return func(svc *reference.Service) error {
				_, err := svc.ReadAspect(as(u), tag.String(), "tagProperties", 0)
				return err
			}
		}},
		{"EntityV2 read by a user with GET_ENTITY_PRIVILEGE", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, tag := f.user(t), newTag(t, f)
			f.grantOn(t, u, tag, reference.PrivGetEntity)
			return func(svc *reference.Service) error { _, err := svc.EntityV2(as(u), tag.String(), nil, true); return err }
		}},
		{"EntityV3 read by a user with EDIT_ENTITY", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, tag := f.user(t), newTag(t, f)
			f.grantOn(t, u, tag, reference.PrivEditEntity)
			return func(svc *reference.Service) error {
				_, err := svc.EntityV3(as(u), "tag", tag.String(), nil)
				return err
			}
		}},
		{"EntitiesV3 read by a user with DELETE_ENTITY on both", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, one, two := f.user(t), newTag(t, f), newTag(t, f)
			f.grantOn(t, u, one, reference.PrivDeleteEntity)
			f.grantOn(t, u, two, reference.PrivDeleteEntity)
			return func(svc *reference.Service) error {
				_, err := svc.EntitiesV3(as(u), "tag", []reference.EntityRequest{{URN: one.String()}, {URN: two.String()}})
				return err
			}
		}},
		{"DeleteEntity by a holder of DELETE_ENTITY", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, tag := f.user(t), newTag(t, f)
			f.grantOn(t, u, tag, reference.PrivDeleteEntity)
			return func(svc *reference.Service) error { return svc.DeleteEntity(as(u), "tag", tag.String()) }
		}},
		{"Entity read by a user with VIEW_ENTITY_PAGE", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, tag := f.user(t), newTag(t, f)
			f.grantOn(t, u, tag, reference.PrivViewEntityPage)
			return func(svc *reference.Service) error { _, err := svc.Entity(as(u), tag.String()); return err }
		}},
		{"EntitiesV2 read by a user with GET_ENTITY_PRIVILEGE on both", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, one, two := f.user(t), newTag(t, f), newTag(t, f)
			f.grantOn(t, u, one, reference.PrivGetEntity)
			f.grantOn(t, u, two, reference.PrivGetEntity)
			return func(svc *reference.Service) error {
				_, err := svc.EntitiesV2(as(u), []string{one.String(), two.String()}, nil, true)
				return err
			}
		}},
		{"SignUp with the current invite token", func(t *testing.T, f *fixture) func(*reference.Service) error {
			invite := f.invite(t)
			return func(svc *reference.Service) error {
				_, err := svc.SignUp(context.Background(), reference.SignUpInput{FullName: "New", Email: "s-" + uuid.NewString()[:8] + "@example.com", Password: "pw", InviteToken: invite})
				return err
			}
		}},
		{"GetInviteToken of a role that has one", func(t *testing.T, f *fixture) func(*reference.Service) error {
			role := "urn:li:dataHubRole:r-" + uuid.NewString()[:8]
			if _, err := f.svc.GetInviteToken(root, role); err != nil {
				t.Fatal(err)
			}
			return func(svc *reference.Service) error { _, err := svc.GetInviteToken(root, role); return err }
		}},
		{"GetInviteToken of a role that has none yet", func(t *testing.T, f *fixture) func(*reference.Service) error {
			role := "urn:li:dataHubRole:r-" + uuid.NewString()[:8]
			return func(svc *reference.Service) error { _, err := svc.GetInviteToken(root, role); return err }
		}},
		{"CreateInviteToken by a holder of MANAGE_USER_CREDENTIALS", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			f.grant(t, u, reference.PrivManageUserCredentials)
			role := "urn:li:dataHubRole:r-" + uuid.NewString()[:8]
			return func(svc *reference.Service) error { _, err := svc.CreateInviteToken(as(u), role); return err }
		}},
		{"ListUsers matching a query", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u := f.user(t)
			return func(svc *reference.Service) error {
				users, _, err := svc.ListUsers(as(u), 0, 10, u.ID)
				if err == nil && len(users) != 1 {
					t.Errorf("ListUsers(%q) = %v, want the one user", u.ID, users)
				}
				return err
			}
		}},
		{"RemoveUser by a holder of MANAGE_USERS_AND_GROUPS", func(t *testing.T, f *fixture) func(*reference.Service) error {
			u, gone := f.user(t), f.nativeUser(t, "pw")
			f.grant(t, u, reference.PrivManageUsersAndGroups)
			return func(svc *reference.Service) error { return svc.RemoveUser(as(u), gone.String()) }
		}},
	}
}

func platformPolicy(u reference.URN) reference.Policy {
	return reference.Policy{Type: reference.PolicyPlatform, State: reference.PolicyActive, Name: "p-" + uuid.NewString(),
		Privileges: []string{reference.PrivCreateTags}, Actors: reference.ActorFilter{Users: []string{u.String()}}}
}

// grantOn gives u privileges on one resource through a metadata policy.
func (f *fixture) grantOn(t *testing.T, u, resource reference.URN, privileges ...string) {
	t.Helper()
	_, err := f.svc.CreatePolicy(root, reference.Policy{
		Type: reference.PolicyMetadata, State: reference.PolicyActive, Name: "p-" + uuid.NewString(),
		Privileges: privileges, Actors: reference.ActorFilter{Users: []string{u.String()}},
		Resources: &reference.ResourceFilter{Resources: []string{resource.String()}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// over is a service with f's configuration over store.
func (f *fixture) over(t *testing.T, store reference.Store) *reference.Service {
	t.Helper()
	codec, err := jwt.New([]byte(strings.Repeat("k", 32)), "")
	if err != nil {
		t.Fatal(err)
	}
	return reference.NewService(store, reference.Config{AuthEnabled: true, Codec: codec, Salt: []byte("salt"), Now: func() time.Time { return f.now }})
}

// TestStoreFailingMidRequest: whichever of an operation's store calls fails,
// the operation answers SERVICE_UNAVAILABLE. It never carries on with what
// it did not get, which would turn an outage into an answer: a privilege
// check that read no policies says "unauthorized", a user that could not be
// read looks like no user, a list comes back empty.
func TestStoreFailingMidRequest(t *testing.T) {
	f := newFixture(t)
	for _, op := range midRequestOperations() {
		t.Run(op.name, func(t *testing.T) {
			healthy := &faultyStore{Store: testDB}
			if err := op.prepare(t, f)(f.over(t, healthy)); err != nil {
				t.Fatalf("with a healthy store: %v", err)
			}
			if len(healthy.calls) < 1 {
				t.Fatalf("made no store call")
			}
			for n := 1; n <= len(healthy.calls); n++ {
				call := op.prepare(t, f)
				store := &faultyStore{Store: testDB, failAt: n}
				err := call(f.over(t, store))
				if reference.ErrorCodeOf(err) != reference.EUNAVAILABLE {
					t.Errorf("store call %d of %d (%s) failing: got %v, want %s", n, len(healthy.calls), healthy.calls[n-1], err, reference.EUNAVAILABLE)
				}
			}
		})
	}
}

// TestRacesBetweenTwoCalls: an entity removed by someone else between the
// read that found it and the write that changes it is NOT_FOUND, not a
// success that did nothing.
func TestRacesBetweenTwoCalls(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T) (call func(*reference.Service) error, gone reference.URN)
	}{
		{"DeleteTag", func(t *testing.T) (func(*reference.Service) error, reference.URN) {
			u := f.user(t)
			f.grant(t, u, reference.PrivManageTags)
			tag, err := f.svc.CreateTag(root, reference.CreateTagInput{ID: "t-" + uuid.NewString()[:8], Name: "n"})
			if err != nil {
				t.Fatal(err)
			}
			return func(svc *reference.Service) error { _, err := svc.DeleteTag(as(u), tag.String()); return err }, tag
		}},
		{"UpdatePolicy", func(t *testing.T) (func(*reference.Service) error, reference.URN) {
			u := f.user(t)
			f.grant(t, u, reference.PrivManagePolicies)
			p := f.grant(t, f.user(t), reference.PrivCreateTags)
			return func(svc *reference.Service) error {
				_, err := svc.UpdatePolicy(as(u), p.String(), platformPolicy(u))
				return err
			}, p
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call, _ := tc.prepare(t)
			healthy := &faultyStore{Store: testDB}
			if err := call(f.over(t, healthy)); err != nil {
				t.Fatalf("with a healthy store: %v", err)
			}
			last := len(healthy.calls)
			call, gone := tc.prepare(t)
			store := &faultyStore{Store: testDB, beforeAt: last, before: func() {
				if _, err := testDB.DeleteEntity(context.Background(), gone); err != nil {
					panic(fmt.Sprintf("deleting %s: %v", gone, err))
				}
			}}
			err := call(f.over(t, store))
			if reference.ErrorCodeOf(err) != reference.ENOTFOUND {
				t.Errorf("%s removed just before the %s that changes it: got %v, want %s", gone, healthy.calls[last-1], err, reference.ENOTFOUND)
			}
		})
	}
}

// TestEveryOperationNeedsAnActor: the transports put the caller in the
// context; an operation reached without one refuses, rather than acting for
// no one.
func TestEveryOperationNeedsAnActor(t *testing.T) {
	f := newFixture(t)
	tag, err := f.svc.CreateTag(root, reference.CreateTagInput{ID: "t-" + uuid.NewString()[:8], Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	raw, info := f.token(t, f.user(t), "ONE_HOUR")
	nobody := context.Background()
	for name, call := range map[string]func() error{
		"Me":       func() error { _, _, err := f.svc.Me(nobody); return err },
		"CorpUser": func() error { _, err := f.svc.CorpUser(nobody, reference.RootUser.String()); return err },
		"Entity":   func() error { _, err := f.svc.Entity(nobody, tag.String()); return err },
		"Tag":      func() error { _, err := f.svc.Tag(nobody, tag.String()); return err },
		"CreateTag": func() error {
			_, err := f.svc.CreateTag(nobody, reference.CreateTagInput{ID: "x-" + uuid.NewString()[:8]})
			return err
		},
		"DeleteTag": func() error { _, err := f.svc.DeleteTag(nobody, tag.String()); return err },
		"CreateAccessToken": func() error {
			_, _, err := f.svc.CreateAccessToken(nobody, reference.CreateAccessTokenInput{ActorURN: reference.RootUser.String(), Duration: "ONE_HOUR", Name: "t"})
			return err
		},
		"ListAccessTokens": func() error {
			_, _, err := f.svc.ListAccessTokens(nobody, reference.ListAccessTokensInput{Count: 5})
			return err
		},
		"RevokeAccessToken":   func() error { return f.svc.RevokeAccessToken(nobody, info.ID) },
		"AccessTokenMetadata": func() error { _, err := f.svc.AccessTokenMetadata(nobody, raw); return err },
		"CreatePolicy":        func() error { _, err := f.svc.CreatePolicy(nobody, platformPolicy(reference.RootUser)); return err },
		"ListPolicies":        func() error { _, _, err := f.svc.ListPolicies(nobody, 0, 5, ""); return err },
		"ReadAspect":          func() error { _, err := f.svc.ReadAspect(nobody, tag.String(), "tagKey", 0); return err },
		"EntityV2":            func() error { _, err := f.svc.EntityV2(nobody, tag.String(), nil, true); return err },
		"EntityV3":            func() error { _, err := f.svc.EntityV3(nobody, "tag", tag.String(), nil); return err },
		"EntitiesV3": func() error {
			_, err := f.svc.EntitiesV3(nobody, "tag", []reference.EntityRequest{{URN: tag.String()}})
			return err
		},
		"IngestProposals": func() error {
			return f.svc.IngestProposals(nobody, []reference.Proposal{proposal(tag, "tagProperties", `{"name":"overwritten"}`)})
		},
		"DeleteEntity": func() error { return f.svc.DeleteEntity(nobody, "tag", tag.String()) },
	} {
		if err := call(); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
			t.Errorf("%s without an actor: %v, want %s", name, err, reference.EUNAUTHENTICATED)
		}
	}
	if _, err := f.svc.Tag(root, tag.String()); err != nil {
		t.Errorf("the tag is gone after the refused calls: %v", err)
	}
	if _, err := f.svc.Authenticate(nobody, raw); err != nil {
		t.Errorf("the token stopped working after the refused calls: %v", err)
	}
	ghost := reference.UserURN("ghost-" + uuid.NewString()[:8])
	if _, _, err := f.svc.Me(as(ghost)); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
		t.Errorf("Me of a user who does not exist: %v, want %s", err, reference.ENOTFOUND)
	}
}

// TestResetEndsTheOldPasswordsSessionsWhateverComesBetween: a reset ends
// every session of the old password, the one opened with it while the
// reset ran (before the new password was written) included; and should the
// store fail at its last step, the sessions opened before it began are
// already ended.
func TestResetEndsTheOldPasswordsSessionsWhateverComesBetween(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ended := func(t *testing.T, what, raw string) {
		t.Helper()
		if _, err := f.svc.Authenticate(ctx, raw); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
			t.Errorf("%s: %v, want it ended by the reset", what, err)
		}
	}
	t.Run("a sign-in with the old password while the reset runs", func(t *testing.T) {
		u := f.nativeUser(t, "old")
		reset, err := f.svc.CreateNativeUserResetToken(root, u.String())
		if err != nil {
			t.Fatal(err)
		}
		var between string
		store := &faultyStore{Store: testDB, beforeAt: 3, before: func() {
			raw, _, err := f.svc.SignIn(ctx, u.ID, "old")
			if err != nil {
				t.Errorf("the sign-in between: %v", err)
			}
			between = raw
		}}
		if err := f.over(t, store).ResetNativeUserCredentials(ctx, u.ID, "new", reset); err != nil {
			t.Fatal(err)
		}
		if len(store.calls) < 3 || store.calls[2] != "ReplaceAspectIf" {
			t.Fatalf("the reset's store calls are %v: the sign-in did not come before the password was written", store.calls)
		}
		ended(t, "the session opened with the old password while the reset ran", between)
	})
	t.Run("the store failing at the reset's last step", func(t *testing.T) {
		u := f.nativeUser(t, "old")
		first := f.session(t, u, "old")
		second := f.session(t, u, "old")
		reset, err := f.svc.CreateNativeUserResetToken(root, u.String())
		if err != nil {
			t.Fatal(err)
		}
		store := &faultyStore{Store: testDB, failAt: 4}
		if err := f.over(t, store).ResetNativeUserCredentials(ctx, u.ID, "new", reset); reference.ErrorCodeOf(err) != reference.EUNAVAILABLE {
			t.Fatalf("the reset with its last store call failing: %v, want %s", err, reference.EUNAVAILABLE)
		}
		ended(t, "the first session", first)
		ended(t, "the second session", second)
	})
}

// TestSignInOfAUserRemovedMeanwhileOpensNoSession: a user removed between
// the password check and the session's making is refused as a wrong
// sign-in, with no session.
func TestSignInOfAUserRemovedMeanwhileOpensNoSession(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	u := f.nativeUser(t, "pw")
	healthy := &faultyStore{Store: testDB}
	if _, _, err := f.over(t, healthy).SignIn(ctx, u.ID, "pw"); err != nil {
		t.Fatal(err)
	}
	at := slices.Index(healthy.calls, "CreateSession") + 1
	if at == 0 {
		t.Fatalf("a sign-in's store calls %v make no session", healthy.calls)
	}
	store := &faultyStore{Store: testDB, beforeAt: at, before: func() {
		if err := f.svc.RemoveUser(root, u.String()); err != nil {
			t.Errorf("removing the user meanwhile: %v", err)
		}
	}}
	raw, sess, err := f.over(t, store).SignIn(ctx, u.ID, "pw")
	if reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED || raw != "" || sess.ID != "" {
		t.Errorf("signing in as a user removed meanwhile: %q, %+v, %v; want UNAUTHENTICATED and no session", raw, sess, err)
	}
}

// TestSignInsTheStoreFailedDoNotCount: an attempt the store failed (503)
// judged nothing, so it counts as no failure: after many of them, the
// right password signs the user in.
func TestSignInsTheStoreFailedDoNotCount(t *testing.T) {
	f := newFixture(t)
	u := f.nativeUser(t, "pw")
	ctx := reference.NewContextWithClient(context.Background(), reference.Client{Addr: "192.0.2.8"})
	store := &faultyStore{Store: testDB}
	svc := f.over(t, store)
	for i := range 2*reference.DefaultMaxFailuresPerUser + 1 {
		store.calls, store.failAt = nil, 1
		if _, _, err := svc.SignIn(ctx, u.ID, "pw"); reference.ErrorCodeOf(err) != reference.EUNAVAILABLE {
			t.Fatalf("sign-in %d with the store failing: %v, want %s", i+1, err, reference.EUNAVAILABLE)
		}
	}
	store.failAt = 0
	if _, _, err := svc.SignIn(ctx, u.ID, "pw"); err != nil {
		t.Errorf("the right password after the store's failures: %v", err)
	}
}
