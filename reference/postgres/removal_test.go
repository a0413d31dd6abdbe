package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/postgres"
)

// Removal is final (reference/removal.go), and the writes that judge who a
// user is cannot be raced: over the real database, with two replicas.

// twoReplicas are services over two caches of one fresh database, the
// root user and the boot policies made.
func twoReplicas(t *testing.T) (a, b *reference.Service, db *postgres.DB) {
	t.Helper()
	db, _, ca, cb := replicas(t)
	f := &fixture{now: time.Now()}
	a, b = f.over(t, ca), f.over(t, cb)
	if _, err := a.Bootstrap(context.Background(), "root-password-for-tests"); err != nil {
		t.Fatal(err)
	}
	return a, b, db
}

// withinASecond polls check for up to a second: a change made through one
// replica reaches the other when its notification does.
func withinASecond(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s: %v", what, err)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func signUp(t *testing.T, svc *reference.Service, email, password string) reference.URN {
	t.Helper()
	invite, err := svc.GetInviteToken(root, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := svc.SignUp(context.Background(), reference.SignUpInput{FullName: "Test", Email: email, Password: password, InviteToken: invite})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestRemovalIsFinalOnEveryReplica(t *testing.T) {
	ctx := context.Background()
	for _, comesBack := range []string{"sign-up", "ingestion"} {
		t.Run(comesBack, func(t *testing.T) {
			a, b, db := twoReplicas(t)
			email := "ann-" + uuid.NewString()[:8] + "@example.com"
			ann := signUp(t, a, email, "ann's first")
			session, _, err := a.SignIn(ctx, email, "ann's first")
			if err != nil {
				t.Fatal(err)
			}
			pat, _, err := a.CreateAccessToken(as(ann), reference.CreateAccessTokenInput{ActorURN: ann.String(), Duration: reference.DurationNoExpiry, Name: "forever"})
			if err != nil {
				t.Fatal(err)
			}
			policy, err := a.CreatePolicy(root, reference.Policy{Type: reference.PolicyPlatform, State: reference.PolicyActive, Name: "p-" + uuid.NewString(),
				Privileges: []string{reference.PrivManagePolicies, reference.PrivManageUserCredentials}, Actors: reference.ActorFilter{Users: []string{ann.String(), reference.RootUser.String()}}})
			if err != nil {
				t.Fatal(err)
			}
			invite, err := a.CreateInviteToken(as(ann), "")
			if err != nil {
				t.Fatal(err)
			}
			reset, err := a.CreateNativeUserResetToken(root, ann.String())
			if err != nil {
				t.Fatal(err)
			}
			// The other replica has read all of it, and keeps it.
			for name, raw := range map[string]string{"session": session, "token": pat} {
				if _, err := b.Authenticate(ctx, raw); err != nil {
					t.Fatalf("before the removal, her %s on the other replica: %v", name, err)
				}
			}

			if err := a.RemoveUser(root, ann.String()); err != nil {
				t.Fatal(err)
			}
			for name, raw := range map[string]string{"session": session, "token": pat} {
				withinASecond(t, "her "+name+" on the other replica after the removal", func() error {
					if _, err := b.Authenticate(ctx, raw); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
						return fmt.Errorf("answered %v, want UNAUTHENTICATED", err)
					}
					return nil
				})
			}

			// The name comes back, through the other replica.
			switch comesBack {
			case "sign-up":
				signUp(t, b, email, "someone else's")
			case "ingestion":
				p := reference.Proposal{EntityType: "corpuser", EntityURN: ann.String(), ChangeType: "UPSERT", AspectName: reference.AspectCorpUserInfo,
					Aspect: &reference.GenericAspect{Value: `{"active":true,"displayName":"Ann again"}`}}
				if _, err := b.IngestProposal(root, p); err != nil {
					t.Fatal(err)
				}
			}
			if u, err := a.CorpUser(root, ann.String()); err != nil || u == nil {
				t.Fatalf("the user made anew: %v, %v", u, err)
			}
			for _, svc := range []*reference.Service{a, b} {
				for name, raw := range map[string]string{"session": session, "token": pat} {
					if _, err := svc.Authenticate(ctx, raw); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
						t.Errorf("the removed user's %s, once the name came back: %v, want UNAUTHENTICATED", name, err)
					}
				}
			}
			// Nothing of hers: no privilege from her policy, which no
			// longer names her (and still names the others it named).
			probe, _, err := b.CreateAccessToken(root, reference.CreateAccessTokenInput{ActorURN: ann.String(), Duration: reference.DurationOneHour, Name: "probe"})
			if err != nil {
				t.Fatal(err)
			}
			actor, err := a.Authenticate(ctx, probe)
			if err != nil {
				t.Fatal(err)
			}
			_, privs, err := a.Me(reference.NewContextWithActor(ctx, actor))
			if err != nil {
				t.Fatal(err)
			}
			if privs[reference.PrivManagePolicies] || privs[reference.PrivManageUserCredentials] {
				t.Errorf("the user made anew holds %v, granted to the one removed", privs)
			}
			stored, err := db.Aspect(ctx, policy, reference.AspectPolicyInfo)
			if err != nil {
				t.Fatal(err)
			}
			var p reference.Policy
			if err := json.Unmarshal(stored.Value, &p); err != nil {
				t.Fatal(err)
			}
			if len(p.Actors.Users) != 1 || p.Actors.Users[0] != reference.RootUser.String() {
				t.Errorf("the policy names %v after the removal, want the root user alone", p.Actors.Users)
			}
			// Her reset token sets no one's password, her invite token
			// signs no one up.
			if err := b.ResetNativeUserCredentials(ctx, email, "taken over", reset); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
				t.Errorf("the removed user's reset token after the name came back: %v, want BAD_REQUEST", err)
			}
			if _, err := b.SignUp(ctx, reference.SignUpInput{FullName: "X", Email: "x-" + uuid.NewString()[:8], Password: "p", InviteToken: invite}); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
				t.Errorf("a sign-up with the invite token the removed user made: %v, want BAD_REQUEST", err)
			}
		})
	}
}

// TestTokensMadeDuringARemovalEndWithIt: tokens minted for a user while
// the user is being removed either fail or end with the removal; none
// works once the name is back.
func TestTokensMadeDuringARemovalEndWithIt(t *testing.T) {
	ctx := context.Background()
	a, b, _ := twoReplicas(t)
	for round := range 5 {
		ann := reference.UserURN("ann-" + uuid.NewString()[:8])
		p := reference.Proposal{EntityType: "corpuser", EntityURN: ann.String(), ChangeType: "UPSERT", AspectName: reference.AspectCorpUserInfo,
			Aspect: &reference.GenericAspect{Value: `{"active":true}`}}
		if _, err := a.IngestProposal(root, p); err != nil {
			t.Fatal(err)
		}
		var (
			mu     sync.Mutex
			minted []string
			wg     sync.WaitGroup
		)
		start := make(chan struct{})
		for i := range 8 {
			svc := []*reference.Service{a, b}[i%2]
			wg.Go(func() {
				<-start
				for range 5 {
					raw, _, err := svc.CreateAccessToken(root, reference.CreateAccessTokenInput{ActorURN: ann.String(), Duration: reference.DurationNoExpiry, Name: "race"})
					if err == nil {
						mu.Lock()
						minted = append(minted, raw)
						mu.Unlock()
					}
				}
			})
		}
		close(start)
		time.Sleep(time.Duration(round) * time.Millisecond)
		if err := a.RemoveUser(root, ann.String()); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if _, err := a.IngestProposal(root, p); err != nil {
			t.Fatal(err)
		}
		for _, raw := range minted {
			if _, err := a.Authenticate(ctx, raw); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
				t.Fatalf("round %d: a token minted while the user was removed works for the user made anew: %v", round, err)
			}
		}
	}
}

// TestResetTokenIsSpentOnce: one reset token sent by eight requests at
// once sets one password.
func TestResetTokenIsSpentOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for round := range 3 {
		ann := f.nativeUser(t, "ann's own")
		reset, err := f.svc.CreateNativeUserResetToken(root, ann.String())
		if err != nil {
			t.Fatal(err)
		}
		var (
			wg  sync.WaitGroup
			mu  sync.Mutex
			set []string
		)
		start := make(chan struct{})
		for i := range 8 {
			wg.Go(func() {
				<-start
				pw := fmt.Sprintf("password %d", i)
				if err := f.svc.ResetNativeUserCredentials(ctx, ann.ID, pw, reset); err == nil {
					mu.Lock()
					set = append(set, pw)
					mu.Unlock()
				} else if reference.ErrorCodeOf(err) != reference.EBADREQUEST {
					t.Errorf("a reset that lost the race: %v, want BAD_REQUEST", err)
				}
			})
		}
		close(start)
		wg.Wait()
		if len(set) != 1 {
			t.Fatalf("round %d: the one reset token set %d passwords (%v), want 1", round, len(set), set)
		}
		if _, _, err := f.svc.SignIn(ctx, ann.ID, set[0]); err != nil {
			t.Errorf("round %d: the password the reset set does not sign in: %v", round, err)
		}
	}
}
