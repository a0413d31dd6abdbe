package reference

import "context"

// Client is who sent a request, as its transport saw it: the address the
// request came from (the client's own, when a proxy the operator trusts
// says so) and whether it reached the service over HTTPS. Sign-in is
// throttled by it; cookies are Secure by it.
type Client struct {
	// Addr is the client's IP address, "" when unknown.
	Addr string
	// Secure: the client reached the service over HTTPS.
	Secure bool
}

type clientKey struct{}

// NewContextWithClient returns ctx carrying c.
func NewContextWithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientFromContext returns the client of ctx, and false when there is
// none.
func ClientFromContext(ctx context.Context) (Client, bool) {
	c, ok := ctx.Value(clientKey{}).(Client)
	return c, ok
}
