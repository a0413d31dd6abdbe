package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/postgres/pgtest"
)

// nativeUser makes a user with a password the way DataHub does: the root
// user's invite token, and a sign-up with it.
func (f *fixture) nativeUser(t *testing.T, password string) reference.URN {
	t.Helper()
	invite, err := f.svc.GetInviteToken(root, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := f.svc.SignUp(context.Background(), reference.SignUpInput{FullName: "Test", Email: "n-" + uuid.NewString()[:8] + "@example.com", Password: password, InviteToken: invite})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// session signs u in with password and returns the session's token.
func (f *fixture) session(t *testing.T, u reference.URN, password string) string {
	t.Helper()
	raw, _, err := f.svc.SignIn(context.Background(), u.ID, password)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// signedIn makes a user with a password and signs them in.
func (f *fixture) signedIn(t *testing.T) (reference.URN, string, reference.Session) {
	t.Helper()
	u := f.nativeUser(t, "pw")
	raw, sess, err := f.svc.SignIn(context.Background(), u.ID, "pw")
	if err != nil {
		t.Fatal(err)
	}
	return u, raw, sess
}

func TestSignInOpensASessionThatActsAsTheUser(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann := f.nativeUser(t, "ann's password")
	raw, sess, err := f.svc.SignIn(ctx, ann.ID, "ann's password")
	if err != nil {
		t.Fatal(err)
	}
	if sess.ActorURN != ann.String() || !sess.ExpiresAt.After(f.now) || sess.ID == "" || strings.Contains(sess.ID, raw) {
		t.Errorf("session = %+v", sess)
	}
	actor, err := f.svc.Authenticate(ctx, raw)
	if err != nil || actor.URN != ann {
		t.Fatalf("Authenticate(session) = %v, %v; want %s", actor, err, ann)
	}
	// It is no personal access token: it is not listed or described as one.
	tokens, _, err := f.svc.ListAccessTokens(root, reference.ListAccessTokensInput{Filters: map[string][]string{"actorUrn": {ann.String()}}})
	if err != nil || len(tokens) != 0 {
		t.Errorf("tokens of a user who only signed in = %v, %v; want none", tokens, err)
	}
	if _, err := f.svc.AccessTokenMetadata(root, raw); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
		t.Errorf("metadata of a session token: %v, want NOT_FOUND", err)
	}
	// Its user's privileges, as they are.
	if _, err := f.svc.CreateTag(reference.NewContextWithActor(ctx, actor), reference.CreateTagInput{ID: "s-" + sess.ID[:6], Name: "n"}); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("a session of a user without CREATE_TAGS created a tag: %v", err)
	}
}

func TestSignInRefusesWithOneAnswer(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann := f.nativeUser(t, "right")
	noPassword := f.user(t)
	suspended := f.nativeUser(t, "right")
	f.ingest(t, suspended, "corpUserStatus", `{"status":"SUSPENDED"}`)
	var messages []string
	for name, c := range map[string][2]string{
		"wrong password":    {ann.ID, "wrong"},
		"empty password":    {ann.ID, ""},
		"no such user":      {"nobody-" + ann.ID, "right"},
		"user without one":  {noPassword.ID, ""},
		"user without one2": {noPassword.ID, "right"},
		"suspended":         {suspended.ID, "right"},
		"no username":       {"", "right"},
		"not a username":    {"a:b", "right"},
	} {
		raw, _, err := f.svc.SignIn(ctx, c[0], c[1])
		if raw != "" || reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
			t.Errorf("%s: SignIn = %q, %v; want UNAUTHENTICATED", name, raw, err)
			continue
		}
		messages = append(messages, reference.ErrorMessageOf(err))
	}
	for _, m := range messages[1:] {
		if m != messages[0] {
			t.Errorf("sign-in failures are told apart: %q and %q", messages[0], m)
		}
	}
}

func TestSignOutEndsTheSessionOnly(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann := f.nativeUser(t, "pw")
	first := f.session(t, ann, "pw")
	second := f.session(t, ann, "pw")
	pat, _ := f.token(t, ann, reference.DurationOneHour)
	if err := f.svc.SignOut(ctx, first); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Authenticate(ctx, first); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
		t.Errorf("a signed-out session: %v, want UNAUTHENTICATED", err)
	}
	for name, raw := range map[string]string{"the other session": second, "a personal access token": pat} {
		if _, err := f.svc.Authenticate(ctx, raw); err != nil {
			t.Errorf("%s stopped working when another session ended: %v", name, err)
		}
	}
	// Signing out twice, or with a personal access token, changes nothing.
	if err := f.svc.SignOut(ctx, first); err != nil {
		t.Errorf("signing out again: %v", err)
	}
	if err := f.svc.SignOut(ctx, pat); err != nil {
		t.Errorf("signing out with a personal access token: %v", err)
	}
	if _, err := f.svc.Authenticate(ctx, pat); err != nil {
		t.Errorf("a personal access token stopped working when used to sign out: %v", err)
	}
}

func TestSessionsSurviveARestartAndExpire(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann, raw, sess := f.signedIn(t)
	// Another Service over the same database: a restart, or a replica.
	again := f.over(t, testDB)
	if a, err := again.Authenticate(ctx, raw); err != nil || a.URN != ann {
		t.Fatalf("after a restart: %v, %v", a, err)
	}
	f.now = sess.ExpiresAt.Add(time.Second)
	if _, err := again.Authenticate(ctx, raw); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
		t.Errorf("an expired session: %v, want UNAUTHENTICATED", err)
	}
}

func TestResetTokensAreTheManagersToGiveAndWorkOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann, bob := f.nativeUser(t, "first"), f.user(t)
	// The nearest privileges are not enough.
	f.grant(t, bob, reference.PrivManageAccessTokens, reference.PrivManagePolicies)
	if _, err := f.svc.CreateNativeUserResetToken(as(bob), ann.String()); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("a reset token made without MANAGE_USER_CREDENTIALS: %v", err)
	}
	f.grant(t, bob, reference.PrivManageUserCredentials)
	reset, err := f.svc.CreateNativeUserResetToken(as(bob), ann.String())
	if err != nil {
		t.Fatal(err)
	}
	for name, u := range map[string]string{"no such user": "urn:li:corpuser:nobody-" + ann.ID, "a tag": "urn:li:tag:x", "not a urn": "ann", "a user without a password": bob.String()} {
		if _, err := f.svc.CreateNativeUserResetToken(root, u); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
			t.Errorf("reset token for %s: %v, want BAD_REQUEST", name, err)
		}
	}
	for name, c := range map[string][3]string{
		"another user's name": {bob.ID, "pw", reset},
		"a wrong token":       {ann.ID, "pw", reset + "x"},
		"no token":            {ann.ID, "pw", ""},
		"no password":         {ann.ID, "", reset},
		"73 bytes":            {ann.ID, strings.Repeat("p", 73), reset},
	} {
		if err := f.svc.ResetNativeUserCredentials(ctx, c[0], c[1], c[2]); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
			t.Errorf("%s: %v, want BAD_REQUEST", name, err)
		}
	}
	if _, _, err := f.svc.SignIn(ctx, bob.ID, "pw"); err == nil {
		t.Errorf("a refused reset set someone's password")
	}
	if err := f.svc.ResetNativeUserCredentials(ctx, ann.ID, "pw", reset); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.SignIn(ctx, ann.ID, "pw"); err != nil {
		t.Errorf("signing in with the password set: %v", err)
	}
	if err := f.svc.ResetNativeUserCredentials(ctx, ann.ID, "other", reset); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("a reset token used twice: %v", err)
	}
	// A day later, an unused reset token no longer works.
	reset, err = f.svc.CreateNativeUserResetToken(root, ann.String())
	if err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(24*time.Hour + time.Second)
	if err := f.svc.ResetNativeUserCredentials(ctx, ann.ID, "late", reset); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("an expired reset token: %v", err)
	}
}

// A session store that cannot reach its database says so: a failure is
// never taken for "no such session" (which would sign people out, or let a
// signed-out session be judged without its record).
func TestSessionStoreFailuresAreNotAbsence(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, raw, sess := f.signedIn(t)
	closed, _ := pgtest.Fresh(t)
	closed.Close()
	if err := closed.CreateSession(ctx, sess); err == nil {
		t.Error("CreateSession over a closed pool: no error")
	}
	if _, err := closed.Session(ctx, sess.ID); err == nil || reference.ErrorCodeOf(err) == reference.ENOTFOUND {
		t.Errorf("Session over a closed pool: %v, want an error other than NOT_FOUND", err)
	}
	if err := closed.DeleteSession(ctx, sess.ID); err == nil {
		t.Error("DeleteSession over a closed pool: no error")
	}
	cut := f.over(t, closed)
	if _, err := cut.Authenticate(ctx, raw); err == nil || reference.ErrorCodeOf(err) == reference.EUNAUTHENTICATED {
		t.Errorf("a session checked against a database that does not answer: %v, want an error other than UNAUTHENTICATED", err)
	}
	if err := cut.SignOut(ctx, raw); err == nil {
		t.Error("signing out against a database that does not answer reported no error")
	}
}

// A sign-in with the right password settles its attempt as a success: a
// person who signs in many times in a row (a script, many browsers) is
// never throttled as if each had failed.
func TestSignInsThatSucceedAreNeverThrottled(t *testing.T) {
	f := newFixture(t)
	u := f.nativeUser(t, "pw")
	ctx := reference.NewContextWithClient(context.Background(), reference.Client{Addr: "192.0.2.7"})
	for i := range 2*reference.DefaultMaxFailuresPerUser + 1 {
		if _, _, err := f.svc.SignIn(ctx, u.ID, "pw"); err != nil {
			t.Fatalf("sign-in %d with the right password: %v", i+1, err)
		}
	}
}
