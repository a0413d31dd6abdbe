package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
)

// What is remembered of documents, keyed by their text: at most
// cachedDocuments of them, each at most maxCachedDocument bytes, so the
// memory a client can make the server hold this way is bounded.
const (
	cachedDocuments   = 1000
	maxCachedDocument = 16 << 10
)

// documentCache is a least-recently-used cache of what was learnt of a
// document (its parsed, validated form; that it is within the limits) that
// ignores documents longer than maxCachedDocument.
type documentCache[T any] struct{ lru *lru.LRU[T] }

var _ graphql.Cache[struct{}] = documentCache[struct{}]{}

func newDocumentCache[T any]() documentCache[T] {
	return documentCache[T]{lru: lru.New[T](cachedDocuments)}
}

func (c documentCache[T]) Get(ctx context.Context, key string) (T, bool) {
	return c.lru.Get(ctx, key)
}

func (c documentCache[T]) Add(ctx context.Context, key string, value T) {
	if len(key) <= maxCachedDocument {
		c.lru.Add(ctx, key, value)
	}
}
