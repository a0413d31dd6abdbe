package postgres_test

import "testing"

// TestSearchLagListsAUserOnlyOnceTheLagHasPassed: listUsers is
// search-backed in DataHub, so in the lagging mode a user just made is
// listed only once the lag has passed, as a token is.
func TestSearchLagListsAUserOnlyOnceTheLagHasPassed(t *testing.T) {
	l := newLagging(t, testDB, 0)
	u := l.user(t)
	if users, total, err := l.svc.ListUsers(root, 0, 10, u.ID); err != nil || len(users) != 0 || total != 0 {
		t.Fatalf("at once: %v (total %d, err %v), want the user not listed yet", users, total, err)
	}
	l.now = l.now.Add(testLag)
	if users, total, err := l.svc.ListUsers(root, 0, 10, u.ID); err != nil || len(users) != 1 || users[0].URN != u || total != 1 {
		t.Fatalf("once the lag has passed: %v (total %d, err %v), want %s", users, total, err, u)
	}
}
