package reference

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// PATCH of an aspect, as DataHub applies a proposal with changeType PATCH
// (PatchItemImpl, AspectTemplateEngine and the templates of
// entity-registry/src/main/java/com/linkedin/metadata/aspect/patch/template
// at DataHub commit 7e93355). The patch is a JSON Patch (RFC 6902) list, or
// an object {"patch": [...], "arrayPrimaryKeys": {...}, "forceGenericPatch":
// ...} (GenericJsonPatch), which is what the OpenAPI path carries. It
// applies to the aspect stored or, when there is none, to its template's
// default, after the template has turned each of its keyed arrays into an
// object keyed by the array's key fields (ArrayMergingTemplate): so
// "add /tags/urn:li:tag:pii" adds one tag whatever is there, adding it again
// changes nothing, and "remove /owners/urn:li:corpuser:ann" removes each of
// Ann's ownerships, whatever its type. Then the objects are turned back into
// arrays.

// keyedArray is a field of an aspect holding an array that a patch
// addresses by its elements' key fields: none for an array of strings
// (each string its own key), one or more nested for an array of records
// (ownership: owner, then type). elem, when set, is the template of each
// record of the array (editableSchemaMetadata's fields carry tags and
// terms of their own).
type keyedArray struct {
	field string
	keys  []string
	elem  *patchTemplate
}

// patchTemplate is DataHub's template of one aspect.
type patchTemplate struct {
	arrays []keyedArray
	// defaults is the aspect as its template's getDefault makes it, made
	// at now by actor.
	defaults func(now time.Time, actor string) *object
	// stamp, when set, is an audit stamp field the template fills in when
	// it is missing, before and after patching (GlossaryTermsTemplate:
	// auditStamp).
	stamp string
	// fineGrained marks upstreamLineage, whose fineGrainedLineages DataHub
	// reshapes by transform, downstream, query and upstream
	// (FineGrainedLineageTemplateHelper); the reference patches that field
	// as plain JSON.
	fineGrained bool
}

func auditStamp(now time.Time, actor string) *object {
	o := newObject()
	o.set("time", json.Number(fmt.Sprint(now.UnixMilli())))
	o.set("actor", actor)
	return o
}

func objectOf(pairs ...any) *object {
	o := newObject()
	for i := 0; i+1 < len(pairs); i += 2 {
		o.set(pairs[i].(string), pairs[i+1])
	}
	return o
}

var (
	globalTagsTemplate = patchTemplate{
		arrays:   []keyedArray{{field: "tags", keys: []string{"tag"}}},
		defaults: func(time.Time, string) *object { return objectOf("tags", []any{}) },
	}
	glossaryTermsTemplate = patchTemplate{
		arrays: []keyedArray{{field: "terms", keys: []string{"urn"}}},
		defaults: func(now time.Time, _ string) *object {
			return objectOf("terms", []any{}, "auditStamp", auditStamp(now, SystemUser.String()))
		},
		stamp: "auditStamp",
	}
)

// patchTemplates are DataHub's templates (AspectTemplateEngine's
// SUPPORTED_TEMPLATES) for the aspects DataHub's SDK patch builders write
// most: tags, terms, owners, properties, lineage, domains, siblings and the
// editable schema's field tags and terms.
var patchTemplates = map[string]patchTemplate{
	"globalTags":    globalTagsTemplate,
	"glossaryTerms": glossaryTermsTemplate,
	"ownership": {
		arrays: []keyedArray{{field: "owners", keys: []string{"owner", "type"}}},
		defaults: func(now time.Time, _ string) *object {
			return objectOf("owners", []any{}, "lastModified", auditStamp(now, SystemUser.String()))
		},
	},
	"datasetProperties": {
		arrays:   []keyedArray{{field: "tags"}},
		defaults: func(time.Time, string) *object { return objectOf("tags", []any{}, "customProperties", newObject()) },
	},
	"editableDatasetProperties": {
		defaults: func(time.Time, string) *object { return newObject() },
	},
	"upstreamLineage": {
		arrays:      []keyedArray{{field: "upstreams", keys: []string{"dataset"}}},
		defaults:    func(time.Time, string) *object { return objectOf("upstreams", []any{}, "fineGrainedLineages", []any{}) },
		fineGrained: true,
	},
	"domains": {
		arrays:   []keyedArray{{field: "domains"}},
		defaults: func(time.Time, string) *object { return objectOf("domains", []any{}) },
	},
	"siblings": {
		arrays:   []keyedArray{{field: "siblings"}},
		defaults: func(time.Time, string) *object { return objectOf("siblings", []any{}, "primary", false) },
	},
	"editableSchemaMetadata": {
		arrays: []keyedArray{{field: "editableSchemaFieldInfo", keys: []string{"fieldPath"}, elem: &patchTemplate{
			// Each field's tags and terms, when it has them (the nested
			// templates' transforms, without their defaults).
			arrays: []keyedArray{},
		}}},
		defaults: func(now time.Time, _ string) *object {
			stamp := auditStamp(now, SystemUser.String())
			return objectOf("created", stamp, "lastModified", deepCopy(stamp), "editableSchemaFieldInfo", []any{})
		},
	},
}

// unitSeparator joins the parts of a nested key field (ArrayMergingTemplate).
const unitSeparator = "\u241f"

// MaxPatchOps bounds the operations of one patch: each may copy a list
// it grows, so their number bounds the work a patch can ask for. No patch
// builder of DataHub's SDK comes near it.
const MaxPatchOps = 10_000

// Patch is a decoded patch: its operations and, for DataHub's generic
// patch, the arrays it keys by the given fields.
type Patch struct {
	Ops              []PatchOp
	ArrayPrimaryKeys map[string][]string
	Generic          bool // forceGenericPatch, or arrayPrimaryKeys given
}

// DecodePatch reads a patch as a proposal carries it: a JSON Patch list,
// or {"patch": [...], "arrayPrimaryKeys": {...}, "forceGenericPatch": b}.
func DecodePatch(value []byte) (*Patch, error) {
	v, err := decodeOrdered(value)
	if err != nil {
		return nil, Errorf(EBADREQUEST, "Invalid JSON Patch: the value is not JSON")
	}
	p := &Patch{}
	if o, ok := v.(*object); ok {
		list, ok := o.get("patch")
		if !ok {
			return nil, Errorf(EBADREQUEST, `Invalid JSON Patch: an object must hold the operations in "patch"`)
		}
		if keys, ok := o.get("arrayPrimaryKeys"); ok && keys != nil {
			ko, ok := keys.(*object)
			if !ok {
				return nil, Errorf(EBADREQUEST, "Invalid JSON Patch: arrayPrimaryKeys must map array fields to their key fields")
			}
			p.ArrayPrimaryKeys = map[string][]string{}
			for _, field := range ko.keys {
				fields, ok := ko.vals[field].([]any)
				if !ok {
					return nil, Errorf(EBADREQUEST, "Invalid JSON Patch: arrayPrimaryKeys.%s must be a list of field names", Excerpt(field))
				}
				for _, f := range fields {
					s, ok := f.(string)
					if !ok {
						return nil, Errorf(EBADREQUEST, "Invalid JSON Patch: arrayPrimaryKeys.%s must be a list of field names", Excerpt(field))
					}
					p.ArrayPrimaryKeys[field] = append(p.ArrayPrimaryKeys[field], s)
				}
			}
		}
		force, _ := o.vals["forceGenericPatch"].(bool)
		p.Generic = force || len(p.ArrayPrimaryKeys) > 0
		v = list
	}
	if list, ok := v.([]any); ok && len(list) > MaxPatchOps {
		return nil, Errorf(EBADREQUEST, "Invalid JSON Patch: %d operations; one patch holds at most %d", len(list), MaxPatchOps)
	}
	ops, err := decodePatchOps(v)
	if err != nil {
		return nil, Errorf(EBADREQUEST, "Invalid JSON Patch: %s", err.Error())
	}
	p.Ops = ops
	return p, nil
}

// HasTemplate says whether DataHub patches the aspect through a template of
// its own (and so has a default to start from when none is stored).
func HasTemplate(aspect string) bool {
	_, ok := patchTemplates[aspect]
	return ok
}

// ApplyPatch patches an aspect's value (nil when none is stored) as DataHub
// does, at now for actor (the defaults' audit stamps). An aspect with no
// template of DataHub's and nothing stored cannot be patched, as in
// DataHub ("Default aspect is required because no aspect currently
// exists"); DataHub's generic patch starts from an empty record.
func ApplyPatch(aspect string, current json.RawMessage, p *Patch, now time.Time, actor string) (json.RawMessage, error) {
	t, templated := patchTemplates[aspect]
	if p.Generic {
		t = patchTemplate{defaults: func(time.Time, string) *object { return newObject() }}
		for field, keys := range p.ArrayPrimaryKeys {
			t.arrays = append(t.arrays, keyedArray{field: field, keys: keys})
		}
		templated = true
	}
	var doc any
	switch {
	case current != nil:
		v, err := decodeOrdered(current)
		if err != nil {
			return nil, fmt.Errorf("stored aspect %s does not decode: %w", aspect, err)
		}
		doc = v
	case templated:
		doc = t.defaults(now, SystemUser.String())
	default:
		return nil, Errorf(EBADREQUEST, "Patch not supported for aspect with name %s: it has no default, and none is stored to patch", aspect)
	}
	root, ok := doc.(*object)
	if !ok {
		return nil, Errorf(EBADREQUEST, "aspect %s is not a JSON object", aspect)
	}
	t.transform(root, now)
	if err := populateParents(root, p.Ops); err != nil {
		return nil, Errorf(EBADREQUEST, "Invalid JSON Patch for %s: %s", aspect, err.Error())
	}
	patched, err := applyPatch(root, p.Ops)
	if err != nil {
		return nil, Errorf(EBADREQUEST, "Invalid JSON Patch for %s: %s", aspect, err.Error())
	}
	out, ok := patched.(*object)
	if !ok {
		return nil, Errorf(EBADREQUEST, "the patch of %s does not leave a JSON object", aspect)
	}
	t.rebase(out, now)
	b, err := encodeOrdered(out)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}

// transform turns the template's keyed arrays into objects
// (ArrayMergingTemplate.arrayFieldToMap): each array field, present or not,
// becomes an object keyed by its elements' key fields, nested one level per
// key, the element's fields at the innermost level.
func (t patchTemplate) transform(o *object, now time.Time) {
	if t.stamp != "" {
		if _, ok := o.get(t.stamp); !ok {
			o.set(t.stamp, auditStamp(now, SystemUser.String()))
		}
	}
	for _, a := range t.arrays {
		m := newObject()
		list, _ := o.vals[a.field].([]any)
		for _, e := range list {
			if len(a.keys) == 0 {
				key, _ := e.(string)
				m.set(key, e)
				continue
			}
			at := m
			for _, k := range a.keys {
				key := keyOf(e, k)
				next, ok := at.vals[key].(*object)
				if !ok {
					next = newObject()
					at.set(key, next)
				}
				at = next
			}
			if eo, ok := e.(*object); ok {
				eo = deepCopy(eo).(*object)
				for _, k := range eo.keys {
					at.set(k, eo.vals[k])
				}
			}
		}
		o.set(a.field, m)
	}
	if t.fineGrained {
		return
	}
	for _, a := range t.arrays {
		if a.elem == nil {
			continue
		}
		for _, e := range leaves(o.vals[a.field], len(a.keys)) {
			transformNested(e, now)
		}
	}
}

// transformNested is editableSchemaMetadata's field template: a field's
// globalTags and glossaryTerms, when present, through their own templates.
func transformNested(e *object, now time.Time) {
	if v, ok := e.vals["globalTags"].(*object); ok {
		globalTagsTemplate.transform(v, now)
	}
	if v, ok := e.vals["glossaryTerms"].(*object); ok {
		glossaryTermsTemplate.transform(v, now)
	}
}

func rebaseNested(e *object, now time.Time) {
	if v, ok := e.vals["globalTags"].(*object); ok {
		globalTagsTemplate.rebase(v, now)
	}
	if v, ok := e.vals["glossaryTerms"].(*object); ok {
		glossaryTermsTemplate.rebase(v, now)
	}
}

// keyOf is an element's key field as text ("" when absent), a nested one
// written with the unit separator between its parts.
func keyOf(e any, field string) string {
	cur := e
	for _, part := range strings.Split(field, unitSeparator) {
		o, ok := cur.(*object)
		if !ok {
			return ""
		}
		cur = o.vals[part]
	}
	switch v := cur.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return fmt.Sprint(v)
	}
	return ""
}

// leaves are the records at depth levels of nested objects.
func leaves(v any, depth int) []*object {
	o, ok := v.(*object)
	if !ok {
		return nil
	}
	if depth == 0 {
		return []*object{o}
	}
	var out []*object
	for _, k := range o.keys {
		out = append(out, leaves(o.vals[k], depth-1)...)
	}
	return out
}

// rebase turns the keyed objects back into arrays
// (transformedMapToArray): an array left as an array (a patch that
// replaced it whole) stays; the records in the objects' order.
func (t patchTemplate) rebase(o *object, now time.Time) {
	for _, a := range t.arrays {
		v, ok := o.get(a.field)
		if !ok {
			continue
		}
		m, ok := v.(*object)
		if !ok {
			continue
		}
		var list []any
		if len(a.keys) == 0 {
			for _, k := range m.keys {
				list = append(list, m.vals[k])
			}
		} else {
			for _, e := range leaves(m, len(a.keys)) {
				list = append(list, e)
			}
		}
		if list == nil {
			list = []any{}
		}
		if a.elem != nil {
			for _, e := range list {
				if eo, ok := e.(*object); ok {
					rebaseNested(eo, now)
				}
			}
		}
		o.set(a.field, list)
	}
	if t.stamp != "" {
		if _, ok := o.get(t.stamp); !ok {
			o.set(t.stamp, auditStamp(now, SystemUser.String()))
		}
	}
}

// populateParents is DataHub's TemplateUtil.populateTopLevelKeys: every
// object a path goes through is made when missing (for a remove, the last
// one too, so that removing what is not there changes nothing). A path
// through anything but objects fails, as it does in DataHub.
func populateParents(root *object, ops []PatchOp) error {
	for _, op := range ops {
		keys, err := pointer(op.Path)
		if err != nil {
			return err
		}
		end := len(keys) - 1
		if op.Op == "remove" {
			end = len(keys)
		}
		at := root
		for i := 0; i < end; i++ {
			v, ok := at.get(keys[i])
			if !ok || v == nil {
				next := newObject()
				at.set(keys[i], next)
				at = next
				continue
			}
			next, ok := v.(*object)
			if !ok {
				if i == end-1 {
					break // the last one may be any value
				}
				return errors.New("the path " + Excerpt(op.Path) + " goes through a value that is not an object")
			}
			at = next
		}
	}
	return nil
}
