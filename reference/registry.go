package reference

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The entity registry: DataHub's entity types, each with its key aspect
// and its aspects, as DataHub's own entity-registry.yml has them, and each
// aspect's record (its full name, whether it is a timeseries aspect, a key
// aspect's fields), as DataHub's PDL declares them, at the DataHub commit
// the reference follows (DataHubCommit). Both files under registry/ are
// written by tools/registrygen from DataHub's source (make registry), never
// by hand; TestRegistryIsDataHubs checks that they are what it writes.

//go:embed registry/entity-registry.yml registry/models.json
var registryFiles embed.FS

// entitySpec is an entity type of the registry.
type entitySpec struct {
	name      string
	keyAspect string
	aspects   []string // the key first, then the registry's order
	snapshot  string   // its snapshot's full name, as the entity path shows it
	// datahubSnapshot: DataHub has the snapshot (an entity emitted whole,
	// emit_mce, is one of these).
	datahubSnapshot bool
}

// aspectSpec is an aspect of the registry.
type aspectSpec struct {
	name       string
	class      string // its record's full name, e.g. com.linkedin.dataset.DatasetProperties
	timeseries bool
	key        []keyField // a key aspect's fields, in order
}

// keyField is a field of a key aspect: a URN's parts are its key's fields,
// in order (DataHub's EntityKeyUtils.convertUrnToEntityKey).
type keyField struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"` // string, urn, enum, long, int, boolean...
	Optional    bool     `json:"optional"`
	EntityTypes []string `json:"entityTypes"` // a urn's allowed entity types; none: any
	Symbols     []string `json:"symbols"`     // an enum's
}

// registry is the registry the reference reads.
type registry struct {
	commit   string
	entities map[string]*entitySpec
	aspects  map[string]*aspectSpec
}

// theRegistry is read once, from the embedded files; they are generated
// and checked (TestRegistryIsDataHubs), so a fault in them is the build's.
var theRegistry = func() *registry {
	r, err := loadRegistry()
	if err != nil {
		panic("reference: the embedded entity registry: " + err.Error())
	}
	return r
}()

func loadRegistry() (*registry, error) {
	yml, err := registryFiles.ReadFile("registry/entity-registry.yml")
	if err != nil {
		return nil, err
	}
	js, err := registryFiles.ReadFile("registry/models.json")
	if err != nil {
		return nil, err
	}
	var file struct {
		Entities []struct {
			Name      string   `yaml:"name"`
			KeyAspect string   `yaml:"keyAspect"`
			Aspects   []string `yaml:"aspects"`
		} `yaml:"entities"`
	}
	if err := yaml.Unmarshal(yml, &file); err != nil {
		return nil, fmt.Errorf("entity-registry.yml: %w", err)
	}
	var models struct {
		Commit  string `json:"datahubCommit"`
		Aspects map[string]struct {
			Class      string     `json:"class"`
			Timeseries bool       `json:"timeseries"`
			Key        []keyField `json:"key"`
		} `json:"aspects"`
		Snapshots map[string]string `json:"snapshots"`
	}
	if err := json.Unmarshal(js, &models); err != nil {
		return nil, fmt.Errorf("models.json: %w", err)
	}
	r := &registry{commit: models.Commit, entities: map[string]*entitySpec{}, aspects: map[string]*aspectSpec{}}
	for name, a := range models.Aspects {
		r.aspects[name] = &aspectSpec{name: name, class: a.Class, timeseries: a.Timeseries, key: a.Key}
	}
	for _, e := range file.Entities {
		spec := &entitySpec{name: e.Name, keyAspect: e.KeyAspect, aspects: append([]string{e.KeyAspect}, e.Aspects...)}
		spec.snapshot = models.Snapshots[e.Name]
		spec.datahubSnapshot = spec.snapshot != ""
		if spec.snapshot == "" {
			// DataHub has snapshots for its older entity types only; the
			// entity path names the others' by the same pattern.
			spec.snapshot = "com.linkedin.metadata.snapshot." + upperFirst(e.Name) + "Snapshot"
		}
		for _, a := range spec.aspects {
			if r.aspects[a] == nil {
				return nil, fmt.Errorf("the entity %s names the aspect %s, which models.json does not describe", e.Name, a)
			}
		}
		if len(r.aspects[e.KeyAspect].key) == 0 {
			return nil, fmt.Errorf("the key aspect %s of %s has no fields", e.KeyAspect, e.Name)
		}
		r.entities[e.Name] = spec
	}
	return r, nil
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// The reference's own rules on top of the registry: what DataHub lets
// ingestion write but the reference keeps to its own operations, because
// writing it through ingestion would grant what its operations guard.

// notIngestible are the entity types ingestion never writes here, with
// what writes them instead. DataHub lets MANAGE_POLICIES write policies
// and EDIT_ENTITY write token records, invite tokens and (with
// MANAGE_SECRETS) secrets through ingestion; the reference keeps each to
// its own operation, where the rules on who may are applied.
var notIngestible = map[string]string{
	EntityPolicy:      "policies are written with createPolicy and updatePolicy",
	EntityAccessToken: "tokens are made with createAccessToken",
	EntityInviteToken: "invite tokens are made with createInviteToken",
	"dataHubSecret":   "the reference keeps no secrets for DataHub's ingestion executor",
}

// hiddenAspects are never shown by the entity reads nor written by
// ingestion: a user's password, the sealed invite token, a secret's value.
var hiddenAspects = map[string]bool{
	AspectCorpUserCredentials: true,
	AspectInviteToken:         true,
	"dataHubSecretValue":      true,
}

// lookupEntity returns the entity type named, nil when the registry has
// none of that name.
func lookupEntity(name string) *entitySpec { return theRegistry.entities[name] }

// has says whether the entity type has the aspect.
func (e *entitySpec) has(aspect string) bool { return slices.Contains(e.aspects, aspect) }

// className returns the full name of the aspect's record, "" for an aspect
// the entity type does not have or that is never shown.
func (e *entitySpec) className(aspect string) string {
	if hiddenAspects[aspect] || !e.has(aspect) {
		return ""
	}
	return theRegistry.aspects[aspect].class
}

// shown says whether the entity reads show the aspect: one of the entity's,
// neither hidden nor a timeseries aspect (DataHub keeps those in its search
// index, not with the entity).
func (e *entitySpec) shown(aspect string) bool {
	return e.className(aspect) != "" && !theRegistry.aspects[aspect].timeseries
}

// timeseries says whether the aspect is a timeseries aspect.
func isTimeseries(aspect string) bool {
	a := theRegistry.aspects[aspect]
	return a != nil && a.timeseries
}

// aspectOfClass returns the entity's aspect whose record is class.
func (e *entitySpec) aspectOfClass(class string) (string, bool) {
	for _, a := range e.aspects {
		if theRegistry.aspects[a].class == class && !hiddenAspects[a] {
			return a, true
		}
	}
	return "", false
}

// keyParts splits a URN's id into its parts as DataHub's TupleKey does: an
// id that starts with "(" is a tuple of parts separated by the commas
// outside inner parentheses ("(a,b(c,d))" is "a" and "b(c,d)"); any other
// id is one part. Parentheses must balance and no part may be empty.
func keyParts(id string) ([]string, error) {
	if !strings.HasPrefix(id, "(") {
		depth := 0
		for _, c := range id {
			switch c {
			case '(':
				depth++
			case ')':
				if depth--; depth < 0 {
					return nil, fmt.Errorf("its parentheses do not balance")
				}
			}
		}
		if depth != 0 {
			return nil, fmt.Errorf("its parentheses do not balance")
		}
		return []string{id}, nil
	}
	var parts []string
	depth, start := 1, 1
	for i := 1; i < len(id); i++ {
		switch id[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return nil, fmt.Errorf("its parentheses do not balance")
			}
		case ',':
			if depth != 1 {
				continue
			}
			if i == start {
				return nil, fmt.Errorf("it has an empty part")
			}
			parts = append(parts, id[start:i])
			start = i + 1
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("its parentheses do not balance")
	}
	end := len(id)
	if id[end-1] == ')' {
		end--
	}
	if end <= start {
		return nil, fmt.Errorf("it has an empty part")
	}
	return append(parts, id[start:end]), nil
}

// maxKeyDepth bounds how deep URNs may nest inside URNs (a data job's URN
// holds its flow's, which holds nothing more): enough for every key of the
// registry, and a bound on the work a URN can ask for.
const maxKeyDepth = 4

// entityKey returns the key aspect of urn's entity, its fields taken from
// the URN's parts in order, as DataHub derives it (EntityKeyUtils), and
// refuses a URN whose parts do not fit the key: a wrong number of them, a
// part that should be a URN (of certain entity types) and is not, or one
// that should be one of an enum's symbols and is not, as DataHub's URN
// validation (UrnValidationUtil.validateUrn) does. An entity type the
// registry does not have is refused too.
func entityKey(urn URN) (name string, value map[string]string, err error) {
	spec := lookupEntity(urn.EntityType)
	if spec == nil {
		return "", nil, unknownEntity(urn.EntityType)
	}
	value, err = keyValue(urn, spec, 0)
	if err != nil {
		return "", nil, err
	}
	return spec.keyAspect, value, nil
}

func keyValue(urn URN, spec *entitySpec, depth int) (map[string]string, error) {
	fields := theRegistry.aspects[spec.keyAspect].key
	parts, err := keyParts(urn.ID)
	if err != nil {
		return nil, Errorf(EBADREQUEST, "invalid urn %s: %v", Excerpt(urn.String()), err)
	}
	if len(parts) != len(fields) {
		return nil, Errorf(EBADREQUEST, "invalid urn %s: a %s urn has the form %s", Excerpt(urn.String()), spec.name, urnForm(spec, fields))
	}
	value := make(map[string]string, len(fields))
	for i, f := range fields {
		part := parts[i]
		if err := checkKeyPart(f, part, depth); err != nil {
			return nil, Errorf(EBADREQUEST, "invalid urn %s: its %s %v", Excerpt(urn.String()), f.Name, err)
		}
		value[f.Name] = part
	}
	return value, nil
}

// checkKeyPart checks one part of a URN against its key field.
func checkKeyPart(f keyField, part string, depth int) error {
	switch f.Type {
	case "urn":
		inner, err := ParseURN(part)
		if err != nil {
			return fmt.Errorf("is not a urn")
		}
		if len(f.EntityTypes) > 0 && !slices.Contains(f.EntityTypes, inner.EntityType) {
			return fmt.Errorf("must be a urn of %s", strings.Join(f.EntityTypes, " or "))
		}
		spec := lookupEntity(inner.EntityType)
		if spec == nil {
			return fmt.Errorf("is a urn of %s, an entity type DataHub does not have", Excerpt(inner.EntityType))
		}
		if depth >= maxKeyDepth {
			return fmt.Errorf("nests urns too deep")
		}
		if _, err := keyValue(inner, spec, depth+1); err != nil {
			return fmt.Errorf("is not a valid urn: %s", ErrorMessageOf(err))
		}
	case "enum":
		if !slices.Contains(f.Symbols, part) {
			return fmt.Errorf("must be one of %s", strings.Join(f.Symbols, ", "))
		}
	case "long", "int":
		if _, err := strconv.ParseInt(part, 10, 64); err != nil {
			return fmt.Errorf("must be a whole number")
		}
	case "boolean":
		if part != "true" && part != "false" {
			return fmt.Errorf("must be true or false")
		}
	}
	return nil
}

// urnForm writes the shape of an entity type's URNs, e.g.
// urn:li:dataset:(<platform>,<name>,<origin>).
func urnForm(spec *entitySpec, fields []keyField) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = "<" + f.Name + ">"
	}
	id := strings.Join(names, ",")
	if len(names) > 1 {
		id = "(" + id + ")"
	}
	return "urn:li:" + spec.name + ":" + id
}

// unknownEntity is the refusal of an entity type the registry does not
// have, in DataHub's words (ConfigEntityRegistry.getEntitySpec). DataHub's
// Rest.li answers it 422 (a ValidationException), its OpenAPI 400; the
// reference answers both 400, as the suite recommends for a bad request
// (httpx-12).
func unknownEntity(name string) error {
	return Errorf(EBADREQUEST, "Failed to find entity with name %s in EntityRegistry", Excerpt(name))
}

// unknownAspect is the refusal of an aspect the entity type does not have,
// in DataHub's words (ValidationApiUtils.validateAspect), 400 as
// unknownEntity.
func unknownAspect(aspect, entityType string) error {
	return Errorf(EBADREQUEST, "Unknown aspect %s for entity %s: it is not an aspect of %s in DataHub's entity registry", Excerpt(aspect), entityType, entityType)
}
