// Package model holds the GraphQL schema's types as Go values: those gqlgen
// generates from reference/graph/schema.graphql (models_gen.go, not edited
// by hand) and the few written by hand where a resolver needs more than the
// schema says (corpuser.go).
package model
