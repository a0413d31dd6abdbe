// Command registrygen writes the entity registry the reference reads
// (reference/registry/) from DataHub's own source at the commit the project
// follows: DataHub's entity-registry.yml copied as it is, and models.json,
// which says of every aspect the registry names the full name of its record
// (taken from the PDL file whose @Aspect annotation names it), whether it is
// a timeseries aspect, and, for a key aspect, its fields in order with their
// types (what a URN's parts must be); and, for each entity type DataHub has a
// snapshot for, the snapshot's full name.
//
//	go run ./tools/registrygen -datahub /path/to/datahub.git [-commit 7e93355...] [-out reference/registry]
//
// -datahub is a clone (or bare repository) of datahub-project/datahub that
// holds the commit; its files are read with git, not from a work tree.
// DATAHUB_GIT names it when the flag is absent. With -check, nothing is
// written: it exits 1, with a diff, when the files in -out are not what it
// would write (make check-registry).
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DataHub's commit the project follows (reference.DataHubCommit).
const defaultCommit = "7e9335506742380a488172085cfbe674ceede333"

const registryPath = "metadata-models/src/main/resources/entity-registry.yml"

// schemaRoots are where DataHub keeps the PDL of the models the registry
// names (metadata-models) and of the common types they use (li-utils: Urn,
// the typed URNs, FabricType).
var schemaRoots = []string{"metadata-models/src/main/pegasus/", "li-utils/src/main/pegasus/"}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "registrygen:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("registrygen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	gitDir := fs.String("datahub", os.Getenv("DATAHUB_GIT"), "DataHub's git repository (default $DATAHUB_GIT)")
	commit := fs.String("commit", defaultCommit, "DataHub's commit to read")
	out := fs.String("out", "reference/registry", "where to write entity-registry.yml and models.json")
	check := fs.Bool("check", false, "write nothing; fail when -out differs from what would be written")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *gitDir == "" {
		return errors.New("name DataHub's git repository with -datahub or DATAHUB_GIT")
	}
	files, err := generate(*gitDir, *commit)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	stale := false
	for _, n := range names {
		path := filepath.Join(*out, n)
		if *check {
			have, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(have, files[n]) {
				fmt.Fprintf(stderr, "%s is not what registrygen writes from DataHub %s; run make registry and commit the result\n", path, *commit)
				stale = true
			}
			continue
		}
		if err := os.WriteFile(path, files[n], 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	if stale {
		return errors.New("the registry is out of date")
	}
	if *check {
		fmt.Fprintf(stdout, "check-registry: %s is what DataHub %s gives\n", *out, (*commit)[:7])
	}
	return nil
}

// models is models.json.
type models struct {
	Commit         string                `json:"datahubCommit"`
	Registry       string                `json:"registry"`
	RegistrySHA256 string                `json:"registrySHA256"`
	Aspects        map[string]aspectInfo `json:"aspects"`
	Snapshots      map[string]string     `json:"snapshots"`
}

type aspectInfo struct {
	Class      string     `json:"class"`
	Timeseries bool       `json:"timeseries,omitempty"`
	Key        []keyField `json:"key,omitempty"`
}

// keyField is one field of a key aspect: a URN's parts are its key's
// fields, in order (EntityKeyUtils.convertUrnToEntityKey).
type keyField struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"` // string, urn, enum, or another primitive
	Optional    bool     `json:"optional,omitempty"`
	EntityTypes []string `json:"entityTypes,omitempty"` // a urn's allowed entity types (none: any)
	Symbols     []string `json:"symbols,omitempty"`     // an enum's
}

// registryFile is what the generator reads of entity-registry.yml.
type registryFile struct {
	Entities []struct {
		Name      string   `yaml:"name"`
		KeyAspect string   `yaml:"keyAspect"`
		Aspects   []string `yaml:"aspects"`
	} `yaml:"entities"`
}

// generate reads DataHub at commit and returns the files to write.
func generate(gitDir, commit string) (map[string][]byte, error) {
	g, err := openGit(gitDir, commit)
	if err != nil {
		return nil, err
	}
	defer g.close()
	yml, err := g.read(registryPath)
	if err != nil {
		return nil, err
	}
	var reg registryFile
	if err := yaml.Unmarshal(yml, &reg); err != nil {
		return nil, fmt.Errorf("%s: %w", registryPath, err)
	}
	paths, err := g.list(schemaRoots...)
	if err != nil {
		return nil, err
	}
	byName := map[string]*schemaFile{}   // full name -> file
	byAspect := map[string]*schemaFile{} // @Aspect name -> record
	for _, p := range paths {
		if !strings.HasSuffix(p, ".pdl") {
			continue
		}
		src, err := g.read(p)
		if err != nil {
			return nil, err
		}
		f, err := parseHeader(p, string(src))
		if err != nil {
			return nil, err
		}
		if prev, dup := byName[f.fullName()]; dup {
			return nil, fmt.Errorf("%s and %s both declare %s", prev.path, p, f.fullName())
		}
		byName[f.fullName()] = f
		a, ok := f.annotations["Aspect"].(map[string]any)
		if !ok || f.kind != "record" {
			continue
		}
		name, _ := a["name"].(string)
		if name == "" {
			return nil, fmt.Errorf("%s: @Aspect without a name", p)
		}
		if prev, dup := byAspect[name]; dup {
			return nil, fmt.Errorf("%s and %s both declare the aspect %s", prev.path, p, name)
		}
		byAspect[name] = f
	}

	m := models{Commit: commit, Registry: registryPath, Aspects: map[string]aspectInfo{}, Snapshots: map[string]string{}}
	sum := sha256.Sum256(yml)
	m.RegistrySHA256 = hex.EncodeToString(sum[:])
	entityNames := map[string]bool{}
	for _, e := range reg.Entities {
		entityNames[e.Name] = true
	}
	for _, e := range reg.Entities {
		if e.KeyAspect == "" {
			return nil, fmt.Errorf("entity %s has no key aspect", e.Name)
		}
		for i, name := range append([]string{e.KeyAspect}, e.Aspects...) {
			if _, done := m.Aspects[name]; done && i > 0 {
				continue
			}
			f, ok := byAspect[name]
			if !ok {
				return nil, fmt.Errorf("entity %s names the aspect %s, which no PDL record declares", e.Name, name)
			}
			info := aspectInfo{Class: f.fullName()}
			a := f.annotations["Aspect"].(map[string]any)
			info.Timeseries = a["type"] == "timeseries"
			if i == 0 {
				key, err := keyFields(f, byName, entityNames)
				if err != nil {
					return nil, err
				}
				info.Key = key
			}
			m.Aspects[name] = info
		}
	}
	for _, f := range byName {
		if f.namespace != "com.linkedin.metadata.snapshot" || f.kind != "record" {
			continue
		}
		ent, ok := f.annotations["Entity"].(map[string]any)
		if !ok {
			continue
		}
		name, _ := ent["name"].(string)
		if entityNames[name] {
			m.Snapshots[name] = f.fullName()
		}
	}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"entity-registry.yml": yml, "models.json": append(js, '\n')}, nil
}

// keyFields reads a key aspect's fields and what each may hold.
func keyFields(f *schemaFile, byName map[string]*schemaFile, entityNames map[string]bool) ([]keyField, error) {
	fields, err := f.fields()
	if err != nil {
		return nil, err
	}
	var out []keyField
	for _, fd := range fields {
		if fd.typ == "" {
			return nil, fmt.Errorf("%s: key field %s is not of a named type", f.path, fd.name)
		}
		k := keyField{Name: fd.name, Optional: fd.optional}
		if err := describe(&k, f, fd.typ, byName, 0); err != nil {
			return nil, err
		}
		if rel, ok := fd.annotations["Relationship"].(map[string]any); ok && k.Type == "urn" {
			if types, ok := rel["entityTypes"].([]any); ok && len(k.EntityTypes) == 0 {
				for _, t := range types {
					if s, _ := t.(string); s != "" {
						k.EntityTypes = append(k.EntityTypes, s)
					}
				}
			}
		}
		for _, t := range k.EntityTypes {
			if !entityNames[t] {
				return nil, fmt.Errorf("%s: key field %s names the entity type %s, which the registry does not have", f.path, fd.name, t)
			}
		}
		out = append(out, k)
	}
	return out, nil
}

var primitives = map[string]bool{"string": true, "long": true, "int": true, "boolean": true, "float": true, "double": true, "bytes": true}

// describe sets k's type from the type named typ in file f.
func describe(k *keyField, f *schemaFile, typ string, byName map[string]*schemaFile, depth int) error {
	if primitives[typ] {
		k.Type = typ
		return nil
	}
	if depth > 8 {
		return fmt.Errorf("%s: the type %s refers to itself", f.path, typ)
	}
	t, ok := byName[f.resolve(typ)]
	if !ok {
		return fmt.Errorf("%s: no schema declares %s", f.path, f.resolve(typ))
	}
	switch t.kind {
	case "enum":
		syms, err := t.symbols()
		if err != nil {
			return err
		}
		k.Type, k.Symbols = "enum", syms
		return nil
	case "typeref":
		if strings.HasSuffix(t.name, "Urn") {
			if _, ok := t.annotations["java.class"]; ok {
				k.Type = "urn"
				if v, ok := t.annotations["validate.com.linkedin.common.validator.TypedUrnValidator"].(map[string]any); ok {
					if et, _ := v["entityType"].(string); et != "" {
						k.EntityTypes = []string{et}
					}
				}
				return nil
			}
		}
		of, err := t.typerefOf()
		if err != nil {
			return err
		}
		if of == "" {
			return fmt.Errorf("%s: a key field's typeref %s is not of a named type", f.path, t.name)
		}
		return describe(k, t, of, byName, depth+1)
	}
	return fmt.Errorf("%s: a key field of type %s (a %s) cannot be a URN's part", f.path, typ, t.kind)
}

// git reads files of one commit through one `git cat-file --batch`.
type git struct {
	dir, commit string
	cmd         *exec.Cmd
	in          io.WriteCloser
	out         *bufio.Reader
}

func openGit(dir, commit string) (*git, error) {
	full, err := exec.Command("git", "--git-dir", dir, "rev-parse", "--verify", commit+"^{commit}").Output()
	if err != nil {
		return nil, fmt.Errorf("DataHub's repository %s has no commit %s: %w", dir, commit, err)
	}
	if got := strings.TrimSpace(string(full)); got != commit {
		return nil, fmt.Errorf("name the commit in full: %s is %s", commit, got)
	}
	cmd := exec.Command("git", "--git-dir", dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &git{dir: dir, commit: commit, cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

func (g *git) close() {
	_ = g.in.Close()
	_ = g.cmd.Wait()
}

// read returns a file's content at the commit.
func (g *git) read(path string) ([]byte, error) {
	if _, err := fmt.Fprintf(g.in, "%s:%s\n", g.commit, path); err != nil {
		return nil, err
	}
	header, err := g.out.ReadString('\n')
	if err != nil {
		return nil, err
	}
	parts := strings.Fields(header)
	if len(parts) != 3 || parts[1] != "blob" {
		return nil, fmt.Errorf("%s at %s: %s", path, g.commit[:7], strings.TrimSpace(header))
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil {
		return nil, err
	}
	buf := make([]byte, n+1) // the content and a newline
	if _, err := io.ReadFull(g.out, buf); err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// list returns the files below the directories at the commit.
func (g *git) list(dirs ...string) ([]string, error) {
	args := append([]string{"--git-dir", g.dir, "ls-tree", "-r", "--name-only", g.commit, "--"}, dirs...)
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree: %w", err)
	}
	return strings.Fields(string(out)), nil
}
