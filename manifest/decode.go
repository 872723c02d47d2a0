package manifest

import (
	"errors"
	"fmt"
	"strings"
)

// manifestSchema mirrors Manifest's field names and types. The
// decoders check types; the schema lets the document scanners reject
// unknown or wrongly-cased keys and name the expected type in errors.
// TestManifestSchemaMatchesStruct keeps it in step with the struct tags.
var manifestSchema = &manifestNode{kind: mnTable, fields: map[string]*manifestNode{
	"name":        {kind: mnString},
	"kind":        {kind: mnString},
	"version":     {kind: mnString},
	"runtime":     {kind: mnString},
	"entrypoint":  {kind: mnString},
	"permissions": {kind: mnStringList},
	"hooks":       {kind: mnStringList},
	"intents":     {kind: mnStringList},
	"default_target": {kind: mnTable, fields: map[string]*manifestNode{
		"program":      {kind: mnString},
		"args":         {kind: mnStringList},
		"rows":         {kind: mnInt},
		"cols":         {kind: mnInt},
		"env":          {kind: mnStringMap},
		"required_env": {kind: mnStringList},
	}},
	"events": {kind: mnTable, fields: map[string]*manifestNode{
		"handles": {kind: mnStringList},
		"emits":   {kind: mnStringList},
	}},
}}

// manifestStringLeaf is the element of a string list or string map.
var manifestStringLeaf = &manifestNode{kind: mnString}

type manifestNodeKind int

const (
	mnString manifestNodeKind = iota
	mnInt
	mnStringList
	mnStringMap
	mnTable
)

type manifestNode struct {
	kind   manifestNodeKind
	fields map[string]*manifestNode // for mnTable
}

// describe names the expected type for error messages; table is "table"
// for TOML and "object" for JSON.
func (n *manifestNode) describe(table string) string {
	switch n.kind {
	case mnString:
		return "string"
	case mnInt:
		return "integer"
	case mnStringList:
		return "array of strings"
	case mnStringMap:
		return table + " of strings"
	default:
		return table
	}
}

// child returns the node for key under n: nil when n is a leaf (the
// decoder reports such type errors), and an error naming field when a
// table has no such key.
func (n *manifestNode) child(field, key string) (*manifestNode, *Error) {
	switch {
	case n == nil:
		return nil, nil
	case n.kind == mnStringMap:
		return manifestStringLeaf, nil
	case n.kind != mnTable:
		return nil, nil
	}
	if c, ok := n.fields[key]; ok {
		return c, nil
	}
	reason := "unknown field"
	for name := range n.fields {
		if strings.EqualFold(name, key) {
			reason = fmt.Sprintf("unknown field (field names are case-sensitive: did you mean %q?)", name)
		}
	}
	return nil, &Error{Field: field, Reason: reason}
}

// lookup finds the node for a field path such as "default_target.rows" or
// "permissions[1]"; nil when the path is not in the schema.
func (n *manifestNode) lookup(field string) *manifestNode {
	for key := range strings.SplitSeq(field, ".") {
		key, indexed := strings.CutSuffix(key, "]")
		if indexed {
			key, _, _ = strings.Cut(key, "[")
		}
		c, err := n.child("", key)
		if err != nil || c == nil {
			return nil
		}
		n = c
		if indexed {
			if n.kind != mnStringList {
				return nil
			}
			n = manifestStringLeaf
		}
	}
	return n
}

func joinManifestField(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// manifestDoc records where each field of a manifest document sits, so
// errors found after decoding can name a line and a precise field.
type manifestDoc struct {
	// lines maps field paths as Validate names them ("permissions[2]",
	// "default_target.program") to 1-based lines.
	lines map[string]int
	// spans are byte ranges of keys and values in document order, outer
	// before inner.
	spans []manifestSpan
	// unknown is the first key outside the schema, compared
	// case-sensitively.
	unknown *Error
}

type manifestSpan struct {
	start, end int // [start, end) byte offsets
	field      string
}

func newManifestDoc() *manifestDoc {
	return &manifestDoc{lines: map[string]int{}}
}

func (d *manifestDoc) setLine(field string, line int) {
	if _, ok := d.lines[field]; !ok && line > 0 {
		d.lines[field] = line
	}
}

func (d *manifestDoc) addSpan(start, end int, field string) {
	if end > start {
		d.spans = append(d.spans, manifestSpan{start, end, field})
	}
}

// fieldAt returns the innermost field whose key or value covers off.
func (d *manifestDoc) fieldAt(off int) (string, bool) {
	for i := len(d.spans) - 1; i >= 0; i-- {
		if s := d.spans[i]; s.start <= off && off < s.end {
			return s.field, true
		}
	}
	return "", false
}

// annotate fills in the line of a validation error from its field or,
// when the field is absent from the document, the nearest enclosing one.
func (d *manifestDoc) annotate(err error) error {
	var me *Error
	if !errors.As(err, &me) || me.Line != 0 {
		return err
	}
	for f := me.Field; f != ""; f = parentManifestField(f) {
		if line, ok := d.lines[f]; ok {
			me.Line = line
			break
		}
	}
	return err
}

// parentManifestField strips the last ".key" or "[i]" from a field path.
func parentManifestField(f string) string {
	if i := strings.LastIndexAny(f, ".["); i >= 0 {
		return f[:i]
	}
	return ""
}

// manifestTypeError reports a value of the wrong type; got may be empty
// when the decoder did not say.
func manifestTypeError(field string, line int, table, got string) *Error {
	want := "a different type"
	if n := manifestSchema.lookup(field); n != nil {
		want = n.describe(table)
	}
	reason := "wrong type: want " + want
	if got != "" {
		reason += ", got " + got
	}
	return &Error{Field: field, Line: line, Reason: reason}
}
