package steps

import (
	"context"
	"fmt"
	"strings"
)

// registerTagRequestsSteps registers the steps of features/tag_requests.feature.
func registerTagRequestsSteps(s stepRegistrar) {
	s.Step(`^the administrator creates a tag whose id is (\d+) characters long$`, adminCreatesTagWithLongID)
	s.Step(`^that tag exists with its name and description$`, thatTagExists)
	s.Step(`^the administrator creates a tag (without a name|whose id has 257 characters|whose id has a comma in it|whose id has a slash in it)$`, adminCreatesFlawedTag)
	s.Step(`^the request is refused as a bad request and the tag was not stored$`, refusedAsBadRequestChangingNothing)
	s.Step(`^the administrator has made a tag$`, adminHasMadeTag)
	s.Step(`^the administrator deletes that tag$`, adminDeletesThatTag)
	s.Step(`^the deletion answers true and the tag is gone$`, deletionAnswersTrueTagGone)
	s.Step(`^the administrator looks up a tag by (a URN without an id|a URN without an entity type|a URN whose entity type has a dash|a URN with a tab in its id|a URN of 1025 characters|a URN with a NUL in its id)$`, adminLooksUpTagByMalformedURN)
	s.Step(`^the administrator deletes a user by deleteTag$`, adminDeletesUserByDeleteTag)
}

// Steps of tag_requests.feature.

// tagOfID is a tag record with an id of n characters, unique to the
// scenario.
func (w *world) tagOfID(n int) *tagRecord {
	t := w.newTag()
	if len(t.id) < n {
		t.id += strings.Repeat("i", n-len(t.id))
	} else {
		t.id = t.id[:n]
	}
	t.urn = "urn:li:tag:" + t.id
	return t
}

func adminCreatesTagWithLongID(ctx context.Context, n int) error {
	w := theWorld(ctx)
	t := w.tagOfID(n)
	w.tag = t
	w.last = w.attemptCreateTag(w.admin(), t)
	return w.checkpoint()
}

func thatTagExists(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var urn *string
	if err := a.data("createTag", &urn); err != nil {
		return w.failed(err)
	}
	return w.tagReadsBack(w.tag)
}

func adminCreatesFlawedTag(ctx context.Context, flaw string) error {
	w := theWorld(ctx)
	t := w.newTag()
	switch flaw {
	case "without a name":
		t.name = ""
	case "whose id has 257 characters":
		t = w.tagOfID(257)
	case "whose id has a comma in it":
		t.id += ",x"
		t.urn = "urn:li:tag:" + t.id
	case "whose id has a slash in it":
		t.id += "/x"
		t.urn = "urn:li:tag:" + t.id
	default:
		return w.fail("unknown flaw %q", flaw)
	}
	w.tag = t
	a := w.attemptCreateTag(w.admin(), t)
	// A tag whose URN cannot be parsed cannot be read back either: then a
	// refusal of the read shows that nothing is stored under it.
	a.noEffect = func() error {
		r := w.graphql(w.reader(), w.suite.docs.tag, map[string]any{"urn": t.urn})
		r.what = "reading the tag " + t.urn
		var v *tagView
		if err := r.data("tag", &v); err != nil {
			w.takeFailures()
			if _, rerr := w.graphQLRefusal(r, "a refusal"); rerr == nil {
				return nil
			}
			return w.failed(err)
		}
		if v != nil && (v.Properties != nil || v.Name == t.name && t.name != "") {
			return w.fail("the tag %s was stored", t.urn)
		}
		return w.tagAbsent(t)
	}
	w.last = a
	return w.checkpoint()
}

func adminHasMadeTag(ctx context.Context) error {
	w := theWorld(ctx)
	t := w.newTag()
	w.tag = t
	return w.mustCreateTag(w.admin(), t)
}

func adminDeletesThatTag(ctx context.Context) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was made in this scenario")
	}
	w.last = w.deleteTagAs(w.admin(), w.tag)
	return w.checkpoint()
}

func deletionAnswersTrueTagGone(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var ok *bool
	if err := a.data("deleteTag", &ok); err != nil {
		return w.failed(err)
	}
	if ok == nil || !*ok {
		return w.fail("%s answered %v, expected true", a.what, ok)
	}
	return w.tagAbsent(w.tag)
}

// malformedURNs are URNs that are not well formed.
var malformedURNs = map[string]func() string{
	"a URN without an id":                func() string { return "urn:li:tag:" },
	"a URN without an entity type":       func() string { return "urn:li::catalogspec" },
	"a URN whose entity type has a dash": func() string { return "urn:li:ta-g:catalogspec" },
	"a URN with a tab in its id":         func() string { return "urn:li:tag:catalog\tspec" },
	"a URN of 1025 characters":           func() string { return "urn:li:tag:" + strings.Repeat("x", 1025-len("urn:li:tag:")) },
	"a URN with a NUL in its id":         func() string { return "urn:li:tag:catalog\x00spec" },
	"a URN that is not valid UTF-8":      func() string { return "urn:li:tag:catalog\xff\xfespec" },
}

func adminLooksUpTagByMalformedURN(ctx context.Context, kind string) error {
	w := theWorld(ctx)
	mk, ok := malformedURNs[kind]
	if !ok {
		return w.fail("unknown malformed URN %q", kind)
	}
	a := w.graphql(w.admin(), w.suite.docs.tag, map[string]any{"urn": mk()})
	a.what = fmt.Sprintf("the administrator looking up a tag by %s", kind)
	a.noEffect = nothingToCheck // a read
	w.last = a
	return w.checkpoint()
}

func adminDeletesUserByDeleteTag(ctx context.Context) error {
	w := theWorld(ctx)
	p := w.person("Ann")
	if err := w.ensureUser(p); err != nil {
		return err
	}
	a := w.graphql(w.admin(), w.suite.docs.deleteTag, map[string]any{"urn": p.urn})
	a.what = "the administrator deleting the user " + p.urn + " by deleteTag"
	w.last = a
	return w.checkpoint()
}
