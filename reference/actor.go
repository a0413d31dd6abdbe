package reference

import "context"

// Actor is who a request runs as.
type Actor struct {
	URN URN
	// System is the all-powerful actor of auth-disabled mode.
	System bool
}

type actorKey struct{}

// NewContextWithActor returns ctx carrying a.
func NewContextWithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFromContext returns the actor of ctx, and false when there is none.
func ActorFromContext(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}
