package steps

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// registerTagsSteps registers the steps of features/tags.feature.
func registerTagsSteps(s stepRegistrar) {
	s.Step(`^the request is refused as DataHub refuses a tag that exists$`, refusedAsExistingTag)
	s.Step(`^`+who+` creates a tag$`, createsATag)
	s.Step(`^`+who+` has created a tag$`, hasCreatedATag)
	s.Step(`^`+who+` creates another tag with the same id$`, createsAnotherTagWithSameID)
	s.Step(`^the answer is the URN of the tag$`, answerIsTagURN)
	s.Step(`^`+who+` reads a tag by (a malformed URN|a dataset's URN)$`, readsTagByOtherURN)
	s.Step(`^`+who+` creates a tag without an id$`, createsATagWithoutID)
	s.Step(`^the answer is the URN of a tag with a random id$`, answerIsURNOfRandomTag)
	s.Step(`^the tag exists with its name and description$`, tagExistsWithNameAndDescription)
	s.Step(`^the tag reads back with its name and description through the `+tiers+` entity path$`, tagReadsBackThrough)
	s.Step(`^the tag does not exist$`, tagDoesNotExist)
	s.Step(`^the first tag is unchanged$`, firstTagIsUnchanged)
}

// tagState is the tags a scenario talks about.
type tagState struct {
	tag      *tagRecord // the tag the scenario talks about
	firstTag *tagRecord // the tag an id was first used for
}

// tagRecord is a tag a scenario makes or means to make.
type tagRecord struct {
	id          string
	urn         string
	name        string
	description string
}

func (w *world) newTag() *tagRecord {
	id := w.unique("tag")
	return &tagRecord{
		id:          id,
		urn:         "urn:li:tag:" + id,
		name:        "catalogspec tag " + id,
		description: "Made by the catalogspec scenario: " + w.name,
	}
}

// tagView is a tag as `tag(urn)` shows it.
type tagView struct {
	URN         string  `json:"urn"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Properties  *struct {
		Name        string  `json:"name"`
		Description *string `json:"description"`
	} `json:"properties"`
}

// attemptCreateTag sends createTag for t as c. The tag is deleted at the end
// of the scenario whatever the answer, since a broken target may make it.
func (w *world) attemptCreateTag(c caller, t *tagRecord) *answer {
	a := w.graphql(c, w.suite.docs.createTag, map[string]any{"input": map[string]any{
		"id": t.id, "name": t.name, "description": t.description,
	}})
	a.what = fmt.Sprintf("%s creating the tag %s", c.name, t.urn)
	a.noEffect = func() error { return w.tagAbsent(t) }
	w.undoTag(t)
	return a
}

// undoTag deletes t at the end of the scenario, if it exists then.
func (w *world) undoTag(t *tagRecord) {
	if w.suite.trace != nil {
		w.removeTagAtEnd(t.urn)
		return
	}
	w.undo("delete the tag "+t.urn, func() error {
		a := w.deleteTagAs(w.reader(), t)
		var out *bool
		if err := a.data("deleteTag", &out); err != nil && !isNotFound(a) {
			return err
		}
		return nil
	})
}

// deleteTagAs sends deleteTag for t as c.
func (w *world) deleteTagAs(c caller, t *tagRecord) *answer {
	a := w.graphql(c, w.suite.docs.deleteTag, map[string]any{"urn": t.urn})
	a.what = fmt.Sprintf("%s deleting the tag %s", c.name, t.urn)
	return a
}

// mustCreateTag creates t as c; it must succeed.
func (w *world) mustCreateTag(c caller, t *tagRecord) error {
	a := w.attemptCreateTag(c, t)
	var urn *string
	if err := a.data("createTag", &urn); err != nil {
		return w.failed(err)
	}
	if urn == nil || *urn != t.urn {
		return w.fail("%s answered %v, expected %q", a.what, deref(urn), t.urn)
	}
	return nil
}

// readTag reads t through `tag(urn)` as the reader.
func (w *world) readTag(t *tagRecord) (*tagView, error) {
	a := w.graphql(w.reader(), w.suite.docs.tag, map[string]any{"urn": t.urn})
	a.what = "reading the tag " + t.urn
	var v *tagView
	if err := a.data("tag", &v); err != nil {
		return nil, w.failed(err)
	}
	return v, nil
}

// tagReadsBack checks that t reads back with its name and description.
func (w *world) tagReadsBack(t *tagRecord) error {
	v, err := w.readTag(t)
	if err != nil {
		return err
	}
	if v == nil {
		return w.fail("the tag %s does not exist", t.urn)
	}
	var problems []string
	if v.URN != t.urn {
		problems = append(problems, fmt.Sprintf("urn is %q, expected %q", v.URN, t.urn))
	}
	// DataHub's deprecated top-level name may hold the id rather than the
	// name; both are accepted. properties.name is the name.
	if v.Name != t.name && v.Name != t.id {
		problems = append(problems, fmt.Sprintf("name is %q, expected %q", v.Name, t.name))
	}
	if deref(v.Description) != t.description {
		problems = append(problems, fmt.Sprintf("description is %q, expected %q", deref(v.Description), t.description))
	}
	if v.Properties == nil {
		problems = append(problems, "properties are null")
	} else {
		if v.Properties.Name != t.name {
			problems = append(problems, fmt.Sprintf("properties.name is %q, expected %q", v.Properties.Name, t.name))
		}
		if deref(v.Properties.Description) != t.description {
			problems = append(problems, fmt.Sprintf("properties.description is %q, expected %q", deref(v.Properties.Description), t.description))
		}
	}
	if len(problems) > 0 {
		return w.fail("the tag %s does not read back as made: %v", t.urn, problems)
	}
	return nil
}

// tagAbsent checks that nothing is stored for t: `tag(urn)` is null or has
// no properties, and the metadata service's entity path shows no
// TagProperties. DataHub treats a URN never written as an entity with its
// key alone, so existence itself is not what a refusal must leave unchanged.
func (w *world) tagAbsent(t *tagRecord) error {
	v, err := w.readTag(t)
	if err != nil {
		return err
	}
	if v != nil && (v.Properties != nil || deref(v.Description) != "" || v.Name == t.name) {
		return w.fail("the tag %s was stored (named %q)", t.urn, v.Name)
	}
	a := w.readEntity(w.reader(), tierGMS, t.urn, false)
	return w.aspectAbsent(a, "TagSnapshot", "com.linkedin.tag.TagProperties")
}

// canCreateTag has p create a tag, which must work and read back. With
// eventually, refusals are retried within the propagation window.
func (w *world) canCreateTag(p *person, eventually bool) error {
	c, err := w.as(p)
	if err != nil {
		return err
	}
	if !eventually {
		return w.createsAndReadsBack(c)
	}
	return w.eventually(p.name+" being able to create a tag", func() (bool, error) {
		err := w.createsAndReadsBack(c)
		return err == nil, err
	})
}

func (w *world) createsAndReadsBack(c caller) error {
	t := w.newTag()
	if err := w.mustCreateTag(c, t); err != nil {
		return err
	}
	return w.tagReadsBack(t)
}

// cannotCreateTag has c try to create a tag, which must be rejected as
// unauthorized and leave no tag. With eventually, an attempt that works is
// retried within the propagation window (its tag is deleted at the end).
func (w *world) cannotCreateTag(c caller, eventually bool) error {
	try := func() error {
		t := w.newTag()
		a := w.attemptCreateTag(c, t)
		w.last = a
		return w.rejectedAsUnauthorized(a)
	}
	if !eventually {
		return try()
	}
	return w.eventually(c.name+" no longer being able to create a tag", func() (bool, error) {
		err := try()
		return err == nil, err
	})
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// Steps.

func createsATag(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.tag = w.newTag()
	w.last = w.attemptCreateTag(c, w.tag)
	return w.checkpoint()
}

func hasCreatedATag(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.tag = w.newTag()
	return w.mustCreateTag(c, w.tag)
}

func createsAnotherTagWithSameID(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was made before")
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	first := *w.tag
	w.firstTag = &first
	second := w.newTag()
	second.id, second.urn = first.id, first.urn
	second.name = "another " + first.name
	second.description = "Another description: " + first.description
	w.last = w.attemptCreateTag(c, second)
	w.last.noEffect = func() error { return w.tagReadsBack(&first) }
	return w.checkpoint()
}

func answerIsTagURN(ctx context.Context) error {
	w := theWorld(ctx)
	if w.last == nil || w.tag == nil {
		return w.fail("no tag was made to judge")
	}
	var urn *string
	if err := w.last.data("createTag", &urn); err != nil {
		return w.failed(err)
	}
	if urn == nil || *urn != w.tag.urn {
		return w.fail("%s answered %v, expected the plain string %q", w.last.what, deref(urn), w.tag.urn)
	}
	return nil
}

func tagExistsWithNameAndDescription(ctx context.Context) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was made to judge")
	}
	return w.tagReadsBack(w.tag)
}

func tagReadsBackThrough(ctx context.Context, tier string) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was made to judge")
	}
	return w.tagSnapshotIs(w.readEntity(w.reader(), tier, w.tag.urn, false), w.tag)
}

func tagDoesNotExist(ctx context.Context) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was meant to judge")
	}
	return w.tagAbsent(w.tag)
}

func firstTagIsUnchanged(ctx context.Context) error {
	w := theWorld(ctx)
	if w.firstTag == nil {
		return w.fail("no tag id was used twice")
	}
	return w.tagReadsBack(w.firstTag)
}

func createsATagWithoutID(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	t := w.newTag()
	t.id, t.urn = "", ""
	w.tag = t
	// The target chooses the URN, which the run learns only from the
	// answer: the journal first learns the name, by which a run killed
	// before the answer arrives has its tag found and removed.
	if err := w.traceEntries(entry{Kind: kindTag, Name: t.name, At: w.atHere()}); err != nil {
		return w.fail("%v", err)
	}
	a := w.graphql(c, w.suite.docs.createTag, map[string]any{"input": map[string]any{"name": t.name, "description": t.description}})
	a.what = fmt.Sprintf("%s creating a tag without an id", c.name)
	w.last = a
	// The URN is known only from the answer; delete what was made (the
	// journal's cleanup does, when the run keeps one).
	w.undo("delete the tag made without an id", func() error {
		if t.urn == "" || w.suite.trace != nil {
			return nil
		}
		a := w.deleteTagAs(w.reader(), t)
		var out *bool
		if err := a.data("deleteTag", &out); err != nil && !isNotFound(a) {
			return err
		}
		return nil
	})
	var urn *string
	if a.data("createTag", &urn) == nil && urn != nil {
		t.urn = *urn
		t.id = strings.TrimPrefix(*urn, "urn:li:tag:")
		// The target chose the URN: the journal learns it now, with the
		// name the suite gave the tag, which repair checks before it
		// deletes the tag.
		if err := w.traceEntries(entry{Kind: kindTag, URN: t.urn, Name: t.name, At: w.atHere()}); err != nil {
			return w.fail("%v", err)
		}
	}
	return w.checkpoint()
}

// uuidShape is a random UUID as DataHub's CreateTagResolver makes one.
var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func answerIsURNOfRandomTag(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var urn *string
	if err := a.data("createTag", &urn); err != nil {
		return w.failed(err)
	}
	id, ok := strings.CutPrefix(deref(urn), "urn:li:tag:")
	if !ok || !uuidShape.MatchString(strings.ToLower(id)) {
		return w.fail("%s answered %q, expected urn:li:tag:<a random UUID>", a.what, deref(urn))
	}
	return nil
}

func readsTagByOtherURN(ctx context.Context, name, which string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	urn := "not-a-urn-" + w.id
	if which == "a dataset's URN" {
		urn = w.newDataset().urn
	}
	a := w.graphql(c, w.suite.docs.tag, map[string]any{"urn": urn})
	a.what = fmt.Sprintf("%s reading a tag by %s (%s)", name, which, urn)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// tagExistsMessage is DataHub's message for a tag id used twice
// (CreateTagResolver).
const tagExistsMessage = "This Tag already exists!"

// refusedAsExistingTag checks DataHub's refusal of a tag id used twice: a
// GraphQL error with code 400, type BAD_REQUEST and DataHub's message, the
// field null, and the first tag as it was.
func refusedAsExistingTag(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	e, err := w.graphQLRefusal(a, "a refusal of a tag id used twice")
	if err != nil {
		return err
	}
	if e.code() != "400" || e.Extensions.Type != "BAD_REQUEST" || e.Message != tagExistsMessage {
		return w.fail("%s failed with code %q, type %q and message %q; expected 400, BAD_REQUEST and %q",
			a.what, e.code(), e.Extensions.Type, e.Message, tagExistsMessage)
	}
	return w.noEffect(a)
}
