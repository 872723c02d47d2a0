package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// ParseTOML decodes a TOML manifest and validates it. Unknown
// fields (matched case-sensitively), wrong types and validation failures
// come back as a *Error naming the field and, where the document
// has it, the line.
func ParseTOML(data []byte) (*Manifest, error) {
	var m Manifest
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	decErr := dec.Decode(&m)
	// The decoder keeps no positions below the top-level key and matches
	// keys case-insensitively; a second pass over the syntax tree fills
	// both gaps. It fails only where the decoder already has.
	doc, scanErr := scanManifestTOML(data)
	if decErr != nil {
		return nil, manifestTOMLError(data, doc, decErr)
	}
	if scanErr != nil {
		return nil, scanErr
	}
	if doc.unknown != nil {
		return nil, doc.unknown
	}
	if err := m.Validate(); err != nil {
		return nil, doc.annotate(err)
	}
	return &m, nil
}

// manifestTOMLTypeMsg matches go-toml's type mismatch message to recover
// what the document held.
var manifestTOMLTypeMsg = regexp.MustCompile(`^cannot decode TOML (\S+) into`)

// manifestTOMLError turns a go-toml error into a *Error, using doc
// (nil when the document does not parse) to name the precise field.
func manifestTOMLError(data []byte, doc *manifestDoc, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		first := &strict.Errors[0]
		line, _ := first.Position()
		me := &Error{Field: strings.Join(first.Key(), "."), Line: line, Reason: "unknown field"}
		// go-toml names a key inside an inline table without its table.
		if doc != nil && doc.unknown != nil {
			me = doc.unknown
		}
		if n := len(strict.Errors) - 1; n > 0 {
			me.Reason += fmt.Sprintf(" (and %d more)", n)
		}
		return me
	}
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return &Error{Reason: err.Error()}
	}
	line, col := de.Position()
	field := strings.Join(de.Key(), ".")
	if doc != nil {
		if f, ok := doc.fieldAt(manifestOffsetAt(data, line, col)); ok {
			field = f
		}
	}
	msg := strings.TrimPrefix(de.Error(), "toml: ")
	if strings.HasPrefix(msg, "cannot ") && field != "" && manifestSchema.lookup(field) != nil {
		got := ""
		if m := manifestTOMLTypeMsg.FindStringSubmatch(msg); m != nil {
			got = m[1]
		} else if strings.HasPrefix(msg, "cannot store a table") {
			got = "table"
		}
		return manifestTypeError(field, line, "table", got)
	}
	return &Error{Field: field, Line: line, Reason: msg}
}

// manifestOffsetAt converts a 1-based line and byte column to an offset.
func manifestOffsetAt(data []byte, line, col int) int {
	off := 0
	for ; line > 1; line-- {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return min(off+col-1, len(data))
}

// scanManifestTOML walks the syntax tree, recording each field's line and
// span and the first key outside the schema.
func scanManifestTOML(data []byte) (*manifestDoc, error) {
	s := manifestTOMLScanner{doc: newManifestDoc()}
	s.p.Reset(data)
	var table []string
	for s.p.NextExpression() {
		e := s.p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = s.keys(nil, e.Key())
		case unstable.KeyValue:
			s.keyValue(table, e)
		}
	}
	if err := s.p.Error(); err != nil {
		return nil, &Error{Reason: err.Error()}
	}
	return s.doc, nil
}

type manifestTOMLScanner struct {
	p   unstable.Parser
	doc *manifestDoc
}

// keys appends a (dotted) key to prefix, recording each part.
func (s *manifestTOMLScanner) keys(prefix []string, it unstable.Iterator) []string {
	path := append([]string(nil), prefix...)
	for it.Next() {
		n := it.Node()
		path = append(path, string(n.Data))
		field := strings.Join(path, ".")
		line := s.line(n)
		if err := manifestTOMLCheckPath(path); err != nil && s.doc.unknown == nil {
			err.Line = line
			s.doc.unknown = err
		}
		s.doc.setLine(field, line)
		s.doc.addSpan(int(n.Raw.Offset), int(n.Raw.Offset+n.Raw.Length), field)
	}
	return path
}

func (s *manifestTOMLScanner) keyValue(prefix []string, kv *unstable.Node) {
	start := len(s.doc.spans)
	path := s.keys(prefix, kv.Key())
	field := strings.Join(path, ".")
	// The whole "key = value" span goes before its key parts, so the
	// innermost span wins in fieldAt.
	s.doc.spans = slices.Insert(s.doc.spans, start, manifestSpan{int(kv.Raw.Offset), int(kv.Raw.Offset + kv.Raw.Length), field})

	v := kv.Value()
	switch v.Kind {
	case unstable.InlineTable:
		for c := v.Children(); c.Next(); {
			if c.Node().Kind == unstable.KeyValue {
				s.keyValue(path, c.Node())
			}
		}
	case unstable.Array:
		i := 0
		for c := v.Children(); c.Next(); {
			n := c.Node()
			if n.Kind == unstable.Comment {
				continue
			}
			elem := field + "[" + strconv.Itoa(i) + "]"
			s.doc.setLine(elem, s.line(n))
			s.doc.addSpan(int(n.Raw.Offset), int(n.Raw.Offset+n.Raw.Length), elem)
			i++
		}
	}
}

func (s *manifestTOMLScanner) line(n *unstable.Node) int {
	if n.Raw.Length == 0 {
		return 0
	}
	return s.p.Shape(n.Raw).Start.Line
}

// manifestTOMLCheckPath rejects a key path that leaves the schema.
func manifestTOMLCheckPath(path []string) *Error {
	n := manifestSchema
	for i, key := range path {
		c, err := n.child(strings.Join(path[:i+1], "."), key)
		if err != nil {
			return err
		}
		if c == nil {
			return nil
		}
		n = c
	}
	return nil
}
