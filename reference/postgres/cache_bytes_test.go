package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/postgres"
)

// TestCacheBoundedByBytes (issue 29): what the cache keeps is bounded by
// bytes, and no caller can fill it. One user's 24 listings of 1,000 large
// tokens under distinct filters once kept 333 MB here. Now a listing
// larger than an entry may be is not kept (it is read from the database
// each time), the listings one caller read hold at most their share, their
// own older ones making way for their newer, and another caller's stay.
func TestCacheBoundedByBytes(t *testing.T) {
	_, _, c, _ := replicas(t)
	ctx := context.Background()
	var reads atomic.Int64
	postgres.OnRead(c, func() { reads.Add(1) })
	as := func(user string) context.Context {
		return reference.NewContextWithActor(ctx, reference.Actor{URN: reference.UserURN(user)})
	}
	// Tokens named n-0 ... n-39, each of about 200 KB, and one of 1.5 MB.
	token := func(name string, size int) {
		v, _ := json.Marshal(map[string]any{"name": name, "description": strings.Repeat("d", size), "ownerUrn": "urn:li:corpuser:owner"})
		urn := reference.URN{EntityType: reference.EntityAccessToken, ID: "bytes-" + name}
		if err := c.CreateEntity(ctx, []reference.Aspect{{URN: urn, Name: reference.AspectAccessTokenInfo, Value: v, CreatedAt: time.Now(), CreatedBy: "urn:li:corpuser:owner"}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 40; i++ {
		token(fmt.Sprintf("n-%d", i), 200<<10)
	}
	token("large", 3*postgres.MaxListEntry/2)
	list := func(ctx context.Context, name string) int64 {
		t.Helper()
		before := reads.Load()
		if _, _, err := c.ListAspects(ctx, reference.Filter{EntityType: reference.EntityAccessToken, Aspect: reference.AspectAccessTokenInfo, Where: map[string][]string{"name": {name}}}); err != nil {
			t.Fatal(err)
		}
		return reads.Load() - before
	}

	// The notifications of the writes come back to this cache a moment
	// later, each making it forget the token listings: until then a
	// listing is read each time.
	for deadline := time.Now().Add(10 * time.Second); list(as("bystander"), "n-0") != 0; {
		if time.Now().After(deadline) {
			t.Fatal("a listing read again and again was read from the database each time")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if list(as("bystander"), "large") != 1 || list(as("bystander"), "large") != 1 {
		t.Error("a listing larger than an entry may be was kept")
	}
	for i := 1; i < 40; i++ {
		list(as("flooder"), fmt.Sprintf("n-%d", i))
	}
	entities, lists, most := c.CachedBytes()
	t.Logf("after 39 listings of 200 KB by one caller: entities %d bytes, listings %d, the most of one caller %d", entities, lists, most)
	if most > postgres.MaxListShare || lists > postgres.MaxListBytes {
		t.Errorf("one caller's listings hold %d bytes, all %d; want at most %d and %d", most, lists, postgres.MaxListShare, postgres.MaxListBytes)
	}
	if list(as("bystander"), "n-0") != 0 {
		t.Error("one caller's listings pushed out another's")
	}
	if list(as("flooder"), "n-39") != 0 {
		t.Error("the caller's newest listing was not kept")
	}
}
