package steps

import "context"

func aTagExists(ctx context.Context) error {
	w := theWorld(ctx)
	w.tag = w.newTag()
	return w.mustCreateTag(w.admin(), w.tag)
}
