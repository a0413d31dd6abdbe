// Package catalogspec carries the conformance suite's specification: the
// features and the GraphQL documents the steps send, embedded so that the
// catalogspec binary checks a server without the repository beside it.
package catalogspec

import (
	"embed"
	"io/fs"
)

// SpecVersion is the version of the specification the features state. It
// changes when a rule is added, removed or changes level; SPEC.md has the
// history.
const SpecVersion = "1.11.0"

//go:embed features/*.feature
var features embed.FS

//go:embed fixtures/graphql/*.graphql
var fixtures embed.FS

// Features holds the .feature files at its root.
func Features() fs.FS { return sub(features, "features") }

// GraphQLDocuments holds the GraphQL documents at its root.
func GraphQLDocuments() fs.FS { return sub(fixtures, "fixtures/graphql") }

func sub(f embed.FS, dir string) fs.FS {
	s, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // dir is a constant that go:embed has checked
	}
	return s
}
