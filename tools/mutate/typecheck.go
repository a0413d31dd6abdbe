package main

import (
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// typeChecker says whether a mutant compiles on its own, without building
// it: it type-checks the mutated package, with the mutated file, against
// the compiled export data of its imports (from `go list -export`). A
// mutant held by a schema build needs no build of its own, but one that
// would not compile (a variable left unused, a function left without its
// return) must still be told apart: it is not viable, not a survivor.
type typeChecker struct {
	root    string            // the snapshot
	module  string            // its module path
	exports map[string]string // import path → export data file
	mu      sync.Mutex
	imp     types.ImporterFrom
	fset    *token.FileSet
}

func newTypeChecker(ctx context.Context, r *runner) (*typeChecker, error) {
	cmd := r.goCmd(ctx, "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", catalogdPkg)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %w", err)
	}
	tc := &typeChecker{root: r.src, module: r.modulePath, exports: map[string]string{}, fset: token.NewFileSet()}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, export, ok := strings.Cut(line, "\t")
		if ok && export != "" {
			tc.exports[path] = export
		}
	}
	tc.imp = importer.ForCompiler(tc.fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := tc.exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	}).(types.ImporterFrom)
	return tc, nil
}

// check type-checks m's package with m applied; nil when it compiles,
// else the first complaint, naming the original file.
func (tc *typeChecker) check(m *Mutant) error {
	dir := filepath.Join(tc.root, filepath.FromSlash(path2dir(m.File)))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	ctxt := build.Default
	tc.mu.Lock()
	defer tc.mu.Unlock()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := ctxt.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if name == filepath.Base(m.File) {
			src = m.Apply(src)
		}
		f, err := parser.ParseFile(tc.fset, filepath.ToSlash(filepath.Join(path2dir(m.File), name)), src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	var first error
	conf := types.Config{
		Importer: tc.imp,
		Error: func(err error) {
			if first == nil {
				first = err
			}
		},
	}
	pkgPath := tc.module + "/" + path2dir(m.File)
	_, _ = conf.Check(pkgPath, tc.fset, files, nil)
	return first
}

// path2dir is the directory of a slash path relative to the module root.
func path2dir(file string) string {
	i := strings.LastIndex(file, "/")
	if i < 0 {
		return "."
	}
	return file[:i]
}
