package steps

import "context"

// registerDeletingTagsSteps registers the steps of features/deleting_tags.feature.
func registerDeletingTagsSteps(s stepRegistrar) {
	s.Step(`^`+who+` deletes the tag$`, deletesTheTag)
}

func deletesTheTag(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was made before")
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	t := *w.tag
	a := w.deleteTagAs(c, &t)
	a.noEffect = func() error { return w.tagReadsBack(&t) }
	w.last = a
	return w.checkpoint()
}
