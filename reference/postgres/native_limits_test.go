package postgres_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
)

// The bounds and the rare paths of native users (reference/native.go) that
// the scenarios do not reach: the longest query ListUsers takes, and an
// invite token that another request keeps making and no read finds.

// TestListUsersQueryBound: a query of 1024 bytes is searched for; one of
// 1025 is refused with BAD_REQUEST, not run.
func TestListUsersQueryBound(t *testing.T) {
	f := newFixture(t)
	u := f.user(t)
	longest := strings.Repeat("q", 1024)
	if users, total, err := f.svc.ListUsers(as(u), 0, 10, longest); err != nil || total != 0 || len(users) != 0 {
		t.Errorf("ListUsers with a query of 1024 bytes = %v of %d, %v; want none found", users, total, err)
	}
	if _, _, err := f.svc.ListUsers(as(u), 0, 10, longest+"q"); reference.ErrorCodeOf(err) != reference.EBADREQUEST || !strings.Contains(reference.ErrorMessageOf(err), "1024") {
		t.Errorf("ListUsers with a query of 1025 bytes: %v; want BAD_REQUEST naming the bound", err)
	}
}

// lostInviteStore is the test database for a request that keeps losing the
// race to make an invite token: the token is never there to read, and
// making it always finds one made.
type lostInviteStore struct{ reference.Store }

func (s lostInviteStore) Aspect(ctx context.Context, urn reference.URN, name string) (reference.Aspect, error) {
	if urn.EntityType == reference.EntityInviteToken {
		return reference.Aspect{}, reference.Errorf(reference.ENOTFOUND, "no aspect")
	}
	return s.Store.Aspect(ctx, urn, name)
}

func (s lostInviteStore) CreateEntity(ctx context.Context, aspects []reference.Aspect) error {
	if len(aspects) > 0 && aspects[0].URN.EntityType == reference.EntityInviteToken {
		return reference.Errorf(reference.ECONFLICT, "exists")
	}
	return s.Store.CreateEntity(ctx, aspects)
}

// TestGetInviteTokenThatIsNeverThereFails: when every attempt to make the
// role's invite token finds one made and no read finds it, GetInviteToken
// fails; it never answers with no token and no error.
func TestGetInviteTokenThatIsNeverThereFails(t *testing.T) {
	f := newFixture(t)
	svc := f.over(t, lostInviteStore{testDB})
	role := "urn:li:dataHubRole:r-" + uuid.NewString()[:8]
	token, err := svc.GetInviteToken(root, role)
	if err == nil || token != "" {
		t.Errorf("GetInviteToken with the token never there to read = %q, %v; want an error and no token", token, err)
	}
}

// spoiltInviteStore is the test database with what it keeps of invite
// tokens spoilt: the stored invite token aspect rewritten by value, or the
// sealing key by key, when set.
type spoiltInviteStore struct {
	reference.Store
	value func(stored []byte) []byte
	key   []byte
}

func (s spoiltInviteStore) Aspect(ctx context.Context, urn reference.URN, name string) (reference.Aspect, error) {
	a, err := s.Store.Aspect(ctx, urn, name)
	if err == nil && s.value != nil && urn.EntityType == reference.EntityInviteToken {
		a.Value = s.value(a.Value)
	}
	return a, err
}

func (s spoiltInviteStore) Secret(ctx context.Context, name string, generate func() ([]byte, error)) ([]byte, error) {
	if s.key != nil {
		return s.key, nil
	}
	return s.Store.Secret(ctx, name, generate)
}

// TestASpoiltInviteTokenIsAnError: an invite token that cannot be read back
// as it was sealed (its aspect not the shape written, its seal not Base64,
// too short, or opened with another key; or a sealing key of the wrong
// size) fails GetInviteToken with an error: never an empty token, which a
// manager would hand out as an invitation.
func TestASpoiltInviteTokenIsAnError(t *testing.T) {
	f := newFixture(t)
	sealed := func(value string) func([]byte) []byte {
		return func(stored []byte) []byte {
			var v map[string]any
			if err := json.Unmarshal(stored, &v); err != nil {
				t.Fatal(err)
			}
			v["token"] = value
			b, _ := json.Marshal(v)
			return b
		}
	}
	for name, store := range map[string]spoiltInviteStore{
		"an aspect that is no object": {value: func([]byte) []byte { return []byte(`["x"]`) }},
		"a seal that is not Base64":   {value: sealed("not base64!")},
		"a seal shorter than a nonce": {value: sealed("AAAA")},
		"a seal made with another key": {value: func(stored []byte) []byte {
			return sealed(base64.StdEncoding.EncodeToString(make([]byte, 60)))(stored)
		}},
		"a sealing key of 16 bytes": {key: make([]byte, 16)},
	} {
		t.Run(name, func(t *testing.T) {
			role := "urn:li:dataHubRole:r-" + uuid.NewString()[:8]
			if store.key == nil {
				if _, err := f.svc.GetInviteToken(root, role); err != nil {
					t.Fatal(err)
				}
			}
			store.Store = testDB
			token, err := f.over(t, store).GetInviteToken(root, role)
			if err == nil || token != "" {
				t.Errorf("GetInviteToken = %q, %v; want an error and no token", token, err)
			}
		})
	}
}

// TestSignUpBounds: a full name and a title of 256 bytes each, and a
// password of 72 (what bcrypt compares), are taken, and the user signs in
// with that password; a title of 257 bytes is refused, and makes no user.
func TestSignUpBounds(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	email := "bounds-" + uuid.NewString()[:8] + "@example.com"
	password := strings.Repeat("p", 72)
	in := reference.SignUpInput{FullName: strings.Repeat("n", 256), Email: email, Password: password, Title: strings.Repeat("t", 256), InviteToken: f.invite(t)}
	if _, err := f.svc.SignUp(ctx, in); err != nil {
		t.Fatalf("a sign-up at every bound: %v", err)
	}
	if _, _, err := f.svc.SignIn(ctx, email, password); err != nil {
		t.Errorf("signing in with the password of 72 bytes: %v", err)
	}
	long := in
	long.Email, long.Title = "bounds-"+uuid.NewString()[:8]+"@example.com", strings.Repeat("t", 257)
	if _, err := f.svc.SignUp(ctx, long); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("a title of 257 bytes: %v, want BAD_REQUEST", err)
	}
	if u, err := f.svc.CorpUser(root, reference.UserURN(long.Email).String()); err != nil || u != nil {
		t.Errorf("the user refused for their title: %v, %v; want none", u, err)
	}
}
