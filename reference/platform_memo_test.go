package reference

import (
	"context"
	"fmt"
	"maps"
	"testing"
)

// TestPlatformForIsGrants: the platform privileges an index remembers for
// a user are what the policies grant, read from each policy directly,
// asked once or again; a new index (the policies changed) remembers
// nothing of the last; the system actor holds them all.
func TestPlatformForIsGrants(t *testing.T) {
	ann, bob, cy := UserURN("ann"), UserURN("bob"), UserURN("cy")
	policies := []Policy{
		{Type: PolicyPlatform, State: PolicyActive, Privileges: []string{PrivManageAccessTokens}, Actors: ActorFilter{Users: []string{ann.String()}}},
		{Type: PolicyPlatform, State: PolicyActive, Privileges: []string{PrivCreateTags, PrivManageTags}, Actors: ActorFilter{AllUsers: true}},
		{Type: PolicyPlatform, State: PolicyInactive, Privileges: []string{PrivManagePolicies}, Actors: ActorFilter{Users: []string{bob.String()}}},
		{Type: PolicyMetadata, State: PolicyActive, Privileges: []string{PrivManageUsersAndGroups}, Actors: ActorFilter{Users: []string{bob.String()}}},
		{Type: PolicyPlatform, State: PolicyActive, Privileges: []string{PrivManageUserCredentials, PrivGenerateAccessTokens}, Actors: ActorFilter{Users: []string{bob.String(), bob.String()}}},
	}
	want := func(ps []Policy, user URN) PlatformPrivilegeSet {
		held := PlatformPrivilegeSet{}
		for _, p := range ps {
			for _, priv := range PlatformPrivileges {
				if p.Grants(user, priv, URN{}) {
					held[priv] = true
				}
			}
		}
		return held
	}
	check := func(ix *policyIndex, ps []Policy) {
		t.Helper()
		for range 2 {
			for _, u := range []URN{ann, bob, cy} {
				if got, w := ix.platformFor(u), want(ps, u); !maps.Equal(got, w) {
					t.Errorf("%s: %v, the policies grant %v", u, got, w)
				}
			}
		}
	}
	ix := newPolicyIndex(policies)
	check(ix, policies)
	if len(ix.platformFor(bob)) == 0 || len(ix.platformFor(cy)) != 2 {
		t.Fatalf("the policies were meant to grant something: bob %v, cy %v", ix.platformFor(bob), ix.platformFor(cy))
	}
	// The policies change: ann's token privilege goes to cy.
	changed := append([]Policy{}, policies...)
	changed[0].Actors.Users = []string{cy.String()}
	check(newPolicyIndex(changed), changed)

	// Past the bound, users are still answered, only not remembered.
	many := newPolicyIndex(policies)
	for i := range maxPlatformMemo + 10 {
		u := UserURN(fmt.Sprint("u", i))
		if got := many.platformFor(u); !maps.Equal(got, want(policies, u)) {
			t.Fatalf("%s: %v", u, got)
		}
	}
	if n := many.platformN.Load(); n != maxPlatformMemo {
		t.Errorf("remembered %d users, the bound is %d", n, maxPlatformMemo)
	}

	s := NewService(nil, Config{})
	all, err := s.platformPrivileges(context.Background(), Actor{URN: SystemUser, System: true})
	if err != nil || len(all) != len(PlatformPrivileges) {
		t.Errorf("the system actor: %v %v", all, err)
	}
}
