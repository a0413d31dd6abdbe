package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// A small reader of Pegasus schema files (PDL), enough for what the
// generator takes from DataHub's models: a file's namespace and imports,
// the annotations of its one top-level declaration, its kind and name, and,
// on demand, a record's fields, an enum's symbols or a typeref's type.

// token is one lexical token of a PDL file.
type token struct {
	kind byte   // 'i' identifier (dots and backquoted parts allowed), 's' string, 'n' number, or the punctuation itself
	text string // the identifier, the string's value, the number, or the punctuation
}

// lex splits src into tokens, dropping comments and whitespace.
func lex(src string) ([]token, error) {
	var out []token
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated comment")
			}
			i += end + 4
		case c == '"':
			j := i + 1
			var b strings.Builder
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' && j+1 < len(src) {
					j++
				}
				b.WriteByte(src[j])
			}
			if j >= len(src) {
				return nil, fmt.Errorf("unterminated string")
			}
			out = append(out, token{'s', b.String()})
			i = j + 1
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.' || src[j] == 'e' || src[j] == 'E' || src[j] == '+' || src[j] == '-') {
				j++
			}
			out = append(out, token{'n', src[i:j]})
			i = j
		case c == '`' || c == '_' || unicode.IsLetter(rune(c)):
			j := i
			var b strings.Builder
			for j < len(src) {
				if src[j] == '`' {
					end := strings.IndexByte(src[j+1:], '`')
					if end < 0 {
						return nil, fmt.Errorf("unterminated backquoted name")
					}
					b.WriteString(src[j+1 : j+1+end])
					j += end + 2
					continue
				}
				r := rune(src[j])
				if r == '_' || r == '.' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) {
					b.WriteByte(src[j])
					j++
					continue
				}
				break
			}
			out = append(out, token{'i', b.String()})
			i = j
		case strings.ContainsRune("{}[]():=@,?", rune(c)):
			out = append(out, token{c, string(c)})
			i++
		default:
			return nil, fmt.Errorf("unexpected character %q", c)
		}
	}
	return out, nil
}

// schemaFile is what the generator reads of one PDL file.
type schemaFile struct {
	path        string
	namespace   string
	imports     map[string]string // short name -> full name
	annotations map[string]any    // the declaration's annotations by path ("Aspect", "java.class")
	kind        string            // record, enum, typeref, fixed
	name        string
	body        []token // after the name: a record's or enum's braces, a typeref's "= type"
}

func (f *schemaFile) fullName() string { return f.namespace + "." + f.name }

// resolve gives the full name of a type named in this file.
func (f *schemaFile) resolve(name string) string {
	if strings.Contains(name, ".") {
		return name
	}
	if full, ok := f.imports[name]; ok {
		return full
	}
	return f.namespace + "." + name
}

// parser walks tokens.
type parser struct {
	toks []token
	pos  int
	path string
}

func (p *parser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return token{}
}

func (p *parser) next() token {
	t := p.peek()
	p.pos++
	return t
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: token %d: %s", p.path, p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) expect(kind byte) (token, error) {
	t := p.next()
	if t.kind != kind {
		return t, p.errorf("expected %q, found %q", string(kind), t.text)
	}
	return t, nil
}

// parseHeader reads a file up to its declaration's name.
func parseHeader(path, src string) (*schemaFile, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p := &parser{toks: toks, path: path}
	f := &schemaFile{path: path, imports: map[string]string{}, annotations: map[string]any{}}
	for p.pos < len(p.toks) {
		t := p.next()
		switch {
		case t.kind == 'i' && t.text == "namespace":
			n, err := p.expect('i')
			if err != nil {
				return nil, err
			}
			f.namespace = n.text
		case t.kind == 'i' && t.text == "package":
			if _, err := p.expect('i'); err != nil {
				return nil, err
			}
		case t.kind == 'i' && t.text == "import":
			n, err := p.expect('i')
			if err != nil {
				return nil, err
			}
			f.imports[n.text[strings.LastIndexByte(n.text, '.')+1:]] = n.text
		case t.kind == '@':
			name, v, err := p.annotation()
			if err != nil {
				return nil, err
			}
			f.annotations[name] = v
		case t.kind == 'i' && (t.text == "record" || t.text == "enum" || t.text == "typeref" || t.text == "fixed"):
			n, err := p.expect('i')
			if err != nil {
				return nil, err
			}
			f.kind, f.name, f.body = t.text, n.text, p.toks[p.pos:]
			return f, nil
		default:
			return nil, p.errorf("unexpected %q before the declaration", t.text)
		}
	}
	return nil, fmt.Errorf("%s: no declaration", path)
}

// annotation reads what follows "@": a path and, after "=", a value.
func (p *parser) annotation() (string, any, error) {
	n, err := p.expect('i')
	if err != nil {
		return "", nil, err
	}
	if p.peek().kind != '=' {
		return n.text, true, nil
	}
	p.next()
	v, err := p.value()
	return n.text, v, err
}

// value reads a JSON-like value: PDL annotations allow a missing comma.
func (p *parser) value() (any, error) {
	t := p.next()
	switch t.kind {
	case 's':
		return t.text, nil
	case 'n':
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, p.errorf("bad number %q", t.text)
		}
		return f, nil
	case 'i':
		switch t.text {
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		}
		return nil, p.errorf("unexpected %q in a value", t.text)
	case '{':
		m := map[string]any{}
		for {
			switch p.peek().kind {
			case '}':
				p.next()
				return m, nil
			case ',':
				p.next()
				continue
			}
			k := p.next()
			if k.kind != 's' && k.kind != 'i' {
				return nil, p.errorf("expected a key, found %q", k.text)
			}
			if _, err := p.expect(':'); err != nil {
				return nil, err
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			m[k.text] = v
		}
	case '[':
		var a []any
		for {
			switch p.peek().kind {
			case ']':
				p.next()
				return a, nil
			case ',':
				p.next()
				continue
			case 0:
				return nil, p.errorf("unterminated list")
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
	}
	return nil, p.errorf("unexpected %q in a value", t.text)
}

// field is one field of a record.
type field struct {
	name        string
	typ         string // the type's name as written; "" for an inline or collection type
	optional    bool
	annotations map[string]any
}

// fields reads a record's own fields (not those it includes).
func (f *schemaFile) fields() ([]field, error) {
	p := &parser{toks: f.body, path: f.path}
	// record Name [includes A, B] {
	for p.peek().kind != '{' {
		if p.peek().kind == 0 {
			return nil, p.errorf("no record body")
		}
		p.next()
	}
	p.next()
	var out []field
	ann := map[string]any{}
	for {
		t := p.next()
		switch t.kind {
		case '}':
			return out, nil
		case ',':
			continue
		case '@':
			name, v, err := p.annotation()
			if err != nil {
				return nil, err
			}
			ann[name] = v
			continue
		case 'i':
		default:
			return nil, p.errorf("unexpected %q in record %s", t.text, f.name)
		}
		if _, err := p.expect(':'); err != nil {
			return nil, err
		}
		fd := field{name: t.text, annotations: ann}
		ann = map[string]any{}
		if p.peek().kind == 'i' && p.peek().text == "optional" {
			p.next()
			fd.optional = true
		}
		typ, err := p.typeExpr()
		if err != nil {
			return nil, err
		}
		fd.typ = typ
		if p.peek().kind == '=' {
			p.next()
			if _, err := p.value(); err != nil {
				return nil, err
			}
		}
		out = append(out, fd)
	}
}

// typeExpr reads a field's type: a name, a collection or union (returned
// as ""), or an inline declaration (also "").
func (p *parser) typeExpr() (string, error) {
	t := p.next()
	if t.kind != 'i' {
		return "", p.errorf("expected a type, found %q", t.text)
	}
	switch t.text {
	case "array", "map", "union":
		return "", p.skipBalanced('[', ']')
	case "record", "enum":
		if _, err := p.expect('i'); err != nil {
			return "", err
		}
		for p.peek().kind != '{' {
			p.next()
		}
		return "", p.skipBalanced('{', '}')
	}
	return t.text, nil
}

// skipBalanced skips from an opening bracket to its match.
func (p *parser) skipBalanced(open, close byte) error {
	if _, err := p.expect(open); err != nil {
		return err
	}
	for depth := 1; depth > 0; {
		t := p.next()
		switch t.kind {
		case open:
			depth++
		case close:
			depth--
		case 0:
			return p.errorf("unbalanced %q", string(open))
		}
	}
	return nil
}

// symbols reads an enum's symbols.
func (f *schemaFile) symbols() ([]string, error) {
	p := &parser{toks: f.body, path: f.path}
	if _, err := p.expect('{'); err != nil {
		return nil, err
	}
	var out []string
	for {
		t := p.next()
		switch t.kind {
		case '}':
			return out, nil
		case ',':
		case '@':
			if _, _, err := p.annotation(); err != nil {
				return nil, err
			}
		case 'i':
			out = append(out, t.text)
		default:
			return nil, p.errorf("unexpected %q in enum %s", t.text, f.name)
		}
	}
}

// typerefOf reads the type a typeref stands for.
func (f *schemaFile) typerefOf() (string, error) {
	p := &parser{toks: f.body, path: f.path}
	if _, err := p.expect('='); err != nil {
		return "", err
	}
	return p.typeExpr()
}
