package postgres_test

import (
	"context"
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
