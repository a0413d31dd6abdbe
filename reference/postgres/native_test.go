package postgres_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
)

// Native users (reference/native.go): invitation, sign-up, listing and
// removal, each from both sides, over the real database.

func (f *fixture) invite(t *testing.T) string {
	t.Helper()
	invite, err := f.svc.GetInviteToken(root, "")
	if err != nil {
		t.Fatal(err)
	}
	return invite
}

func TestSignUpMakesANativeUserWhoSignsIn(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	email := "carl-" + uuid.NewString()[:8] + "@example.com"
	u, err := f.svc.SignUp(ctx, reference.SignUpInput{FullName: "Carl Test", Email: email, Password: "carl's", Title: "Data Engineer", InviteToken: f.invite(t)})
	if err != nil {
		t.Fatal(err)
	}
	if u != reference.UserURN(email) {
		t.Errorf("SignUp made %s, want %s", u, reference.UserURN(email))
	}
	got, err := f.svc.CorpUser(root, u.String())
	if err != nil || got == nil {
		t.Fatalf("CorpUser(%s) = %v, %v", u, got, err)
	}
	want := reference.CorpUser{URN: u, Username: email, Active: true, DisplayName: "Carl Test", FullName: "Carl Test", Email: email, Title: "Data Engineer"}
	if *got != want {
		t.Errorf("the new user is %+v, want %+v", *got, want)
	}
	status, err := testDB.Aspect(ctx, u, reference.AspectCorpUserStatus)
	var st struct{ Status string }
	if err != nil || json.Unmarshal(status.Value, &st) != nil || st.Status != "ACTIVE" {
		t.Errorf("the new user's status: %s, %v; want ACTIVE", status.Value, err)
	}
	if _, _, err := f.svc.SignIn(ctx, email, "carl's"); err != nil {
		t.Errorf("signing in with the password signed up with: %v", err)
	}
	if _, err := f.svc.CreateNativeUserResetToken(root, u.String()); err != nil {
		t.Errorf("a reset token for a native user: %v", err)
	}
}

func TestSignUpRefusalsMakeNoUserAndChangeNoOne(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	invite := f.invite(t)
	ingested := f.user(t)
	native := f.nativeUser(t, "native's own")
	capitals := reference.UserURN("Cap-" + uuid.NewString()[:8])
	f.ingest(t, capitals, "corpUserInfo", `{"active":true,"displayName":"Capitals"}`)
	good := func(email string) reference.SignUpInput {
		return reference.SignUpInput{FullName: "X", Email: email, Password: "intruder", Title: "t", InviteToken: invite}
	}
	for name, c := range map[string]struct {
		in   reference.SignUpInput
		code reference.ErrorCode
	}{
		"no full name":                {reference.SignUpInput{Email: "a-" + uuid.NewString(), Password: "p", InviteToken: invite}, reference.EBADREQUEST},
		"a blank full name":           {reference.SignUpInput{FullName: " ", Email: "a-" + uuid.NewString(), Password: "p", InviteToken: invite}, reference.EBADREQUEST},
		"no email":                    {reference.SignUpInput{FullName: "X", Password: "p", InviteToken: invite}, reference.EBADREQUEST},
		"no password":                 {reference.SignUpInput{FullName: "X", Email: "a-" + uuid.NewString(), InviteToken: invite}, reference.EBADREQUEST},
		"no invite token":             {reference.SignUpInput{FullName: "X", Email: "a-" + uuid.NewString(), Password: "p"}, reference.EBADREQUEST},
		"an unknown invite token":     {reference.SignUpInput{FullName: "X", Email: "a-" + uuid.NewString(), Password: "p", InviteToken: invite + "x"}, reference.EBADREQUEST},
		"a 73-byte password":          {reference.SignUpInput{FullName: "X", Email: "a-" + uuid.NewString(), Password: strings.Repeat("p", 73), InviteToken: invite}, reference.EBADREQUEST},
		"a full name of 257 bytes":    {reference.SignUpInput{FullName: strings.Repeat("n", 257), Email: "a-" + uuid.NewString(), Password: "p", InviteToken: invite}, reference.EBADREQUEST},
		"an email with spaces around": {reference.SignUpInput{FullName: "X", Email: " a-" + uuid.NewString(), Password: "p", InviteToken: invite}, reference.EBADREQUEST},
		"an email with a newline":     {reference.SignUpInput{FullName: "X", Email: "a\nb-" + uuid.NewString(), Password: "p", InviteToken: invite}, reference.EBADREQUEST},
		"the root user":               {good(reference.RootUser.ID), reference.ECONFLICT},
		"the system user":             {good(reference.SystemUser.ID), reference.ECONFLICT},
		"a user made by ingestion":    {good(ingested.ID), reference.ECONFLICT},
		"a native user":               {good(native.ID), reference.ECONFLICT},
		// Look-alikes, both ways round: the one who exists may be the one
		// whose name has capitals.
		"the system user in capitals":                {good(strings.ToUpper(reference.SystemUser.ID)), reference.EBADREQUEST},
		"a user named in capitals, in small letters": {good(strings.ToLower(capitals.ID)), reference.EBADREQUEST},
		"a native user, in capitals":                 {good(strings.ToUpper(native.ID)), reference.EBADREQUEST},
	} {
		before, _ := testDB.Aspects(ctx, reference.UserURN(c.in.Email))
		if _, err := f.svc.SignUp(ctx, c.in); reference.ErrorCodeOf(err) != c.code {
			t.Errorf("%s: SignUp = %v, want %s", name, err, c.code)
		}
		after, _ := testDB.Aspects(ctx, reference.UserURN(c.in.Email))
		if len(after) != len(before) {
			t.Errorf("%s: the refused sign-up changed the user's aspects from %d to %d", name, len(before), len(after))
		}
	}
	if _, _, err := f.svc.SignIn(ctx, native.ID, "native's own"); err != nil {
		t.Errorf("the native user's own password after the refusals: %v", err)
	}
	for _, u := range []reference.URN{native, ingested, reference.RootUser} {
		if _, _, err := f.svc.SignIn(ctx, u.ID, "intruder"); err == nil {
			t.Errorf("the intruder's password signs in as %s", u)
		}
	}
	if _, err := testDB.Aspect(ctx, ingested, reference.AspectCorpUserCredentials); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
		t.Errorf("the ingested user got credentials: %v", err)
	}
}

func TestInviteTokensAreTheCredentialManagersAndOnePerRole(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	bob := f.user(t)
	f.grant(t, bob, reference.PrivManageUsersAndGroups, reference.PrivManagePolicies, reference.PrivManageAccessTokens)
	if _, err := f.svc.GetInviteToken(as(bob), ""); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("GetInviteToken without MANAGE_USER_CREDENTIALS: %v", err)
	}
	first := f.invite(t)
	if _, err := f.svc.CreateInviteToken(as(bob), ""); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("CreateInviteToken without MANAGE_USER_CREDENTIALS: %v", err)
	}
	if again := f.invite(t); again != first {
		t.Errorf("the invite token changed after a refused CreateInviteToken, or between two reads")
	}
	f.grant(t, bob, reference.PrivManageUserCredentials)
	if got, err := f.svc.GetInviteToken(as(bob), ""); err != nil || got != first {
		t.Errorf("GetInviteToken with MANAGE_USER_CREDENTIALS: %v (same token: %t)", err, got == first)
	}
	// Another replica reads the same token: the sealing key is shared.
	if got, err := f.over(t, testDB).GetInviteToken(root, ""); err != nil || got != first {
		t.Errorf("another Service over the database: %v (same token: %t)", err, got == first)
	}
	second, err := f.svc.CreateInviteToken(as(bob), "")
	if err != nil || second == first {
		t.Fatalf("CreateInviteToken = %v (new: %t)", err, second != first)
	}
	signUp := func(invite string) error {
		_, err := f.svc.SignUp(ctx, reference.SignUpInput{FullName: "X", Email: "i-" + uuid.NewString()[:8], Password: "p", InviteToken: invite})
		return err
	}
	if err := signUp(first); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("a sign-up with the replaced invite token: %v, want BAD_REQUEST", err)
	}
	for range 2 { // an invite token is not used up
		if err := signUp(second); err != nil {
			t.Errorf("a sign-up with the new invite token: %v", err)
		}
	}
	// A role's token is its own, and also signs people up.
	role := "urn:li:dataHubRole:r-" + uuid.NewString()
	var wg sync.WaitGroup
	tokens := make([]string, 6)
	for i := range tokens { // racing to make the role's first token
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if tokens[i], err = f.svc.GetInviteToken(root, role); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i, tok := range tokens {
		if tok != tokens[0] || tok == second {
			t.Fatalf("racer %d got another token for the role, or the default one", i)
		}
	}
	if err := signUp(tokens[0]); err != nil {
		t.Errorf("a sign-up with a role's invite token: %v", err)
	}
	if err := signUp(second); err != nil {
		t.Errorf("the default invite token stopped working when a role's was made: %v", err)
	}
	for _, bad := range []string{"not-a-urn", "urn:li:tag:x"} {
		if _, err := f.svc.GetInviteToken(root, bad); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
			t.Errorf("GetInviteToken(%q) = %v, want BAD_REQUEST", bad, err)
		}
	}
	// The stored invite token is sealed: neither it nor its entity shows.
	a, err := testDB.Aspect(ctx, reference.URN{EntityType: reference.EntityInviteToken, ID: "default"}, reference.AspectInviteToken)
	if err != nil || strings.Contains(string(a.Value), second) {
		t.Errorf("the stored invite token: %v; holds the token in the clear: %t", err, strings.Contains(string(a.Value), second))
	}
	if _, err := f.svc.Entity(root, "urn:li:inviteToken:default"); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
		t.Errorf("the invite token through the entity path: %v, want NOT_FOUND", err)
	}
}

func TestListUsersFindsByUsername(t *testing.T) {
	f := newFixture(t)
	tag := uuid.NewString()[:8]
	carl := f.nativeUserNamed(t, "Carl-"+tag+"@example.com", "pw")
	f.now = f.now.Add(time.Second)
	dan := f.nativeUserNamed(t, "dan-"+tag+"@example.com", "pw")
	nobody := f.user(t) // anyone signed in may list
	users, total, err := f.svc.ListUsers(as(nobody), 0, 10, strings.ToUpper(tag))
	if err != nil || total != 2 || len(users) != 2 || users[0].URN != dan || users[1].URN != carl {
		t.Fatalf("ListUsers(%q) = %v of %d, %v; want dan and Carl, newest first", tag, users, total, err)
	}
	if users, total, err := f.svc.ListUsers(root, 1, 1, tag); err != nil || total != 2 || len(users) != 1 || users[0].URN != carl {
		t.Errorf("the second page of one: %v of %d, %v; want Carl of 2", users, total, err)
	}
	if users, total, err := f.svc.ListUsers(root, 0, 0, "no-such-"+tag); err != nil || total != 0 || len(users) != 0 {
		t.Errorf("a query nobody matches: %v of %d, %v", users, total, err)
	}
	if _, _, err := f.svc.ListUsers(context.Background(), 0, 10, ""); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
		t.Errorf("ListUsers with no caller: %v, want UNAUTHENTICATED", err)
	}
	if _, _, err := f.svc.ListUsers(root, -1, 10, ""); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("ListUsers from -1: %v, want BAD_REQUEST", err)
	}
	if err := f.svc.RemoveUser(root, dan.String()); err != nil {
		t.Fatal(err)
	}
	if users, total, err := f.svc.ListUsers(root, 0, 10, tag); err != nil || total != 1 || len(users) != 1 || users[0].URN != carl {
		t.Errorf("after dan's removal: %v of %d, %v; want Carl alone", users, total, err)
	}
}

// nativeUserNamed signs a user up under username.
func (f *fixture) nativeUserNamed(t *testing.T, username, password string) reference.URN {
	t.Helper()
	u, err := f.svc.SignUp(context.Background(), reference.SignUpInput{FullName: "Test", Email: username, Password: password, InviteToken: f.invite(t)})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestRemoveUserNeedsManageUsersAndEndsEverything(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann, raw, _ := f.signedIn(t)
	pat, _ := f.token(t, ann, reference.DurationOneHour)
	bob := f.user(t)
	f.grant(t, bob, reference.PrivUpdateUsersAndGroups, reference.PrivManageUserCredentials, reference.PrivManagePolicies)
	if err := f.svc.RemoveUser(as(bob), ann.String()); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("RemoveUser without MANAGE_USERS_AND_GROUPS: %v", err)
	}
	for name, r := range map[string]string{"her session": raw, "her token": pat} {
		if _, err := f.svc.Authenticate(ctx, r); err != nil {
			t.Errorf("after a refused removal, %s: %v", name, err)
		}
	}
	f.grant(t, bob, reference.PrivManageUsersAndGroups)
	for name, c := range map[string]struct {
		urn  string
		code reference.ErrorCode
	}{
		"the root user":         {reference.RootUser.String(), reference.EBADREQUEST},
		"a tag":                 {"urn:li:tag:x", reference.EBADREQUEST},
		"not a urn":             {"ann", reference.EBADREQUEST},
		"a user no one made":    {"urn:li:corpuser:nobody-" + uuid.NewString(), reference.ENOTFOUND},
		"a user, with no actor": {ann.String(), reference.EUNAUTHENTICATED},
	} {
		ctx := as(bob)
		if name == "a user, with no actor" {
			ctx = context.Background()
		}
		if err := f.svc.RemoveUser(ctx, c.urn); reference.ErrorCodeOf(err) != c.code {
			t.Errorf("removing %s: %v, want %s", name, err, c.code)
		}
	}
	if err := f.svc.RemoveUser(as(bob), ann.String()); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]string{"her session": raw, "her token": pat} {
		if _, err := f.svc.Authenticate(ctx, r); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
			t.Errorf("after the removal, %s: %v, want UNAUTHENTICATED", name, err)
		}
	}
	if _, _, err := f.svc.SignIn(ctx, ann.ID, "pw"); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
		t.Errorf("a removed user signing in: %v", err)
	}
	if u, err := f.svc.CorpUser(root, ann.String()); u != nil || err != nil {
		t.Errorf("a removed user: %v, %v; want none", u, err)
	}
	if _, err := f.svc.CreateNativeUserResetToken(root, ann.String()); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("a reset token for a removed user: %v, want BAD_REQUEST", err)
	}
}
