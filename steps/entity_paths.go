package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
)

// registerEntityPathsSteps registers the steps of features/entity_paths.feature.
func registerEntityPathsSteps(s stepRegistrar) {
	s.Step(`^`+who+` reads the tag through the `+tiers+` entity path with a `+urnForms+` URN$`, readsTagThrough)
	s.Step(`^`+who+` reads `+who+`'s user entity through the `+tiers+` entity path with a `+urnForms+` URN$`, readsUserEntityThrough)
	s.Step(`^`+who+` reads `+own+` own user entity through the `+tiers+` entity path with a `+urnForms+` URN$`, readsOwnUserEntityThrough)
	s.Step(`^`+who+` reads the tag through both entity paths$`, readsTagThroughBothPaths)
	s.Step(`^`+who+` reads a tag that does not exist through the `+tiers+` entity path$`, readsMissingTagThrough)
	s.Step(`^`+who+` reads an entity by a malformed URN through the `+tiers+` entity path$`, readsMalformedURNThrough)
	s.Step(`^the answer is the tag's snapshot with its name and description$`, answerIsTagSnapshot)
	s.Step(`^the answer is `+who+`'s user snapshot$`, answerIsUserSnapshot)
	s.Step(`^both answers are the same$`, bothAnswersAreTheSame)
	s.Step(`^the answer explains itself in JSON with its status and a message$`, answerExplainsItself)
	s.Step(`^`+who+` is refused when `+pronoun+` reads? `+who+`'s user entity$`, isRefusedReadingUserEntity)
}

// entityState holds two answers to compare.
type entityState struct {
	pair [2]*answer
}

// The two entity paths, as the features name them.
const (
	tierGMS      = "metadata service's"
	tierFrontend = "frontend's"
	tiers        = `(metadata service's|frontend's)`
	urnForms     = `(raw|percent-encoded)`
)

// percentEncode encodes every byte of s but RFC 3986's unreserved ones, so
// that "urn:li:tag:x" becomes "urn%3Ali%3Atag%3Ax" (url.PathEscape keeps
// ':' and so would send the URN raw).
func percentEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// entityURL is where c reads urn through the tier's entity path.
func entityURL(c caller, tier, urn string, encoded bool) string {
	base := c.gms
	if tier == tierFrontend {
		base = c.frontend + "/api/gms"
	}
	if encoded {
		urn = percentEncode(urn)
	}
	return base + "/entities/" + urn
}

// readEntity reads urn as c through the tier's entity path.
func (w *world) readEntity(c caller, tier, urn string, encoded bool) *answer {
	a := w.send(c, request{method: http.MethodGet, url: entityURL(c, tier, urn, encoded)})
	form := "raw"
	if encoded {
		form = "percent-encoded"
	}
	a.what = fmt.Sprintf("%s reading %s through the %s entity path with a %s URN", c.name, urn, tier, form)
	a.noEffect = nothingToCheck
	return a
}

// snapshot is the entity an entity path answers.
type snapshot struct {
	URN     string                       `json:"urn"`
	Aspects []map[string]json.RawMessage `json:"aspects"`
}

// snapshotOf reads the snapshot of the kind ("TagSnapshot") out of a.
func (w *world) snapshotOf(a *answer, kind string) (*snapshot, error) {
	if a.status != http.StatusOK {
		return nil, w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	var body struct {
		Value map[string]snapshot `json:"value"`
	}
	if err := a.jsonBody(&body); err != nil {
		return nil, w.failed(err)
	}
	key := "com.linkedin.metadata.snapshot." + kind
	s, ok := body.Value[key]
	if !ok {
		return nil, w.fail("%s answered no value.%s", a.what, key)
	}
	return &s, nil
}

// aspect decodes the aspect of the class into v.
func (w *world) aspect(s *snapshot, class string, v any) error {
	for _, a := range s.Aspects {
		if raw, ok := a[class]; ok {
			if err := json.Unmarshal(raw, v); err != nil {
				return w.fail("the aspect %s of %s is not as expected: %v", class, s.URN, err)
			}
			return nil
		}
	}
	return w.fail("%s has no aspect %s", s.URN, class)
}

// tagSnapshotIs checks that a is t's snapshot with its name and description.
func (w *world) tagSnapshotIs(a *answer, t *tagRecord) error {
	s, err := w.snapshotOf(a, "TagSnapshot")
	if err != nil {
		return err
	}
	if s.URN != t.urn {
		return w.fail("%s: the snapshot's urn is %q, expected %q", a.what, s.URN, t.urn)
	}
	var key struct {
		Name string `json:"name"`
	}
	if err := w.aspect(s, "com.linkedin.metadata.key.TagKey", &key); err != nil {
		return err
	}
	if key.Name != t.id {
		return w.fail("%s: TagKey.name is %q, expected %q", a.what, key.Name, t.id)
	}
	var props struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	if err := w.aspect(s, "com.linkedin.tag.TagProperties", &props); err != nil {
		return err
	}
	if props.Name != t.name || props.Description != t.description {
		return w.fail("%s: TagProperties are name %q and description %q, expected %q and %q", a.what, props.Name, props.Description, t.name, t.description)
	}
	return nil
}

// userSnapshotIs checks that a is p's user snapshot.
func (w *world) userSnapshotIs(a *answer, p *person) error {
	s, err := w.snapshotOf(a, "CorpUserSnapshot")
	if err != nil {
		return err
	}
	if s.URN != p.urn {
		return w.fail("%s: the snapshot's urn is %q, expected %q", a.what, s.URN, p.urn)
	}
	var key struct {
		Username string `json:"username"`
	}
	if err := w.aspect(s, "com.linkedin.metadata.key.CorpUserKey", &key); err != nil {
		return err
	}
	if key.Username != p.username {
		return w.fail("%s: CorpUserKey.username is %q, expected %q", a.what, key.Username, p.username)
	}
	var info corpUserInfo
	if err := w.aspect(s, "com.linkedin.identity.CorpUserInfo", &info); err != nil {
		return err
	}
	if want := p.name + " (catalogspec)"; info.DisplayName != want {
		return w.fail("%s: CorpUserInfo.displayName is %q, expected %q", a.what, info.DisplayName, want)
	}
	return nil
}

func (w *world) readerOf(name string) (caller, error) {
	return w.as(w.person(name))
}

// Steps.

func readsTagThrough(ctx context.Context, name, tier, form string) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was made to read")
	}
	c, err := w.readerOf(name)
	if err != nil {
		return err
	}
	w.last = w.readEntity(c, tier, w.tag.urn, form == "percent-encoded")
	return w.checkpoint()
}

func readsUserEntityThrough(ctx context.Context, name, whose, tier, form string) error {
	w := theWorld(ctx)
	c, err := w.readerOf(name)
	if err != nil {
		return err
	}
	w.last = w.readEntity(c, tier, w.person(whose).urn, form == "percent-encoded")
	return w.checkpoint()
}

func readsOwnUserEntityThrough(ctx context.Context, name, tier, form string) error {
	return readsUserEntityThrough(ctx, name, name, tier, form)
}

func readsTagThroughBothPaths(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was made to read")
	}
	c, err := w.readerOf(name)
	if err != nil {
		return err
	}
	w.pair = [2]*answer{w.readEntity(c, tierGMS, w.tag.urn, false), w.readEntity(c, tierFrontend, w.tag.urn, false)}
	return w.checkpoint()
}

func readsMissingTagThrough(ctx context.Context, name, tier string) error {
	w := theWorld(ctx)
	c, err := w.readerOf(name)
	if err != nil {
		return err
	}
	w.last = w.readEntity(c, tier, "urn:li:tag:"+w.unique("missing-tag"), false)
	return w.checkpoint()
}

func answerIsTagSnapshot(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if w.tag == nil {
		return w.fail("no tag was made to judge")
	}
	return w.tagSnapshotIs(a, w.tag)
}

func answerIsUserSnapshot(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.userSnapshotIs(a, w.person(name))
}

func bothAnswersAreTheSame(ctx context.Context) error {
	w := theWorld(ctx)
	if w.pair[0] == nil || w.pair[1] == nil {
		return w.fail("no two answers were asked for")
	}
	if err := w.tagSnapshotIs(w.pair[0], w.tag); err != nil {
		return err
	}
	var a, b any
	if err := json.Unmarshal(w.pair[0].body, &a); err != nil {
		return w.fail("%s: %v", w.pair[0].what, err)
	}
	if err := json.Unmarshal(w.pair[1].body, &b); err != nil {
		return w.fail("%s: %v", w.pair[1].what, err)
	}
	if !reflect.DeepEqual(a, b) {
		return w.fail("the entity paths answer differently:\n%s\n%s", w.pair[0].body, w.pair[1].body)
	}
	return nil
}

func isRefusedReadingUserEntity(ctx context.Context, name, whose string) error {
	w := theWorld(ctx)
	c, err := w.readerOf(name)
	if err != nil {
		return err
	}
	a := w.readEntity(c, tierGMS, w.person(whose).urn, false)
	if a.status != http.StatusForbidden {
		return w.fail("%s answered status %d, expected 403", a.what, a.status)
	}
	return nil
}

func readsMalformedURNThrough(ctx context.Context, name, tier string) error {
	w := theWorld(ctx)
	c, err := w.readerOf(name)
	if err != nil {
		return err
	}
	w.last = w.readEntity(c, tier, "not-a-urn-"+w.id, false)
	return w.checkpoint()
}

// answerExplainsItself checks an error answer of the entity paths: a JSON
// object with the status and a message of its own (Rest.li's error body has
// both), never the text reserved for unknown errors.
func answerExplainsItself(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var body struct {
		Status  any    `json:"status"`
		Message string `json:"message"`
	}
	if err := a.jsonBody(&body); err != nil {
		return w.failed(err)
	}
	if fmt.Sprint(body.Status) != fmt.Sprint(a.status) || strings.TrimSpace(body.Message) == "" || body.Message == "An unknown error occurred." {
		return w.fail("%s answered status %v and message %q in its body; expected the status %d and a message saying why", a.what, body.Status, body.Message, a.status)
	}
	return nil
}
