package steps

import "context"

// registerThingsSteps registers the steps of the things scenarios act on,
// which several features share.
func registerThingsSteps(s stepRegistrar) {
	s.Step(`^a tag exists$`, aTagExists)
}

func aTagExists(ctx context.Context) error {
	w := theWorld(ctx)
	w.tag = w.newTag()
	return w.mustCreateTag(w.admin(), w.tag)
}
