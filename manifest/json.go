package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// ParseJSON decodes a JSON manifest (the wire form used by
// plugin.validate_manifest) and validates it. Errors are reported as for
// ParseTOML; duplicate keys are rejected too, because encoding/json
// would silently keep the last one.
func ParseJSON(data []byte) (*Manifest, error) {
	doc, err := scanManifestJSON(data)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, manifestJSONError(data, doc, err)
	}
	if err := m.Validate(); err != nil {
		return nil, doc.annotate(err)
	}
	return &m, nil
}

func manifestJSONError(data []byte, doc *manifestDoc, err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		// The scan has already rejected syntax errors.
		return &Error{Reason: err.Error()}
	}
	line := manifestJSONLine(data, te.Offset)
	field := te.Field
	// te.Offset is just past a scalar, or just past the '{' or '[' that
	// opens a container: either way the byte before it is in the value.
	if f, ok := doc.fieldAt(int(te.Offset) - 1); ok {
		field = f
	}
	return manifestTypeError(field, line, "object", te.Value)
}

// scanManifestJSON tokenizes a JSON document, recording each field's line
// and value span, and rejecting syntax errors, a non-object document,
// trailing data, unknown or wrongly-cased keys and duplicate keys.
func scanManifestJSON(data []byte) (*manifestDoc, error) {
	s := manifestJSONScanner{data: data, dec: json.NewDecoder(bytes.NewReader(data)), doc: newManifestDoc()}
	s.dec.UseNumber()
	tok, err := s.dec.Token()
	if err != nil {
		return nil, s.syntaxError(err)
	}
	if tok != json.Delim('{') {
		return nil, &Error{Line: s.line(), Reason: "manifest must be a JSON object"}
	}
	if err := s.object(manifestSchema, ""); err != nil {
		return nil, err
	}
	if _, err := s.dec.Token(); err != io.EOF {
		if err != nil {
			return nil, s.syntaxError(err)
		}
		return nil, &Error{Line: s.line(), Reason: "unexpected data after the manifest object"}
	}
	return s.doc, nil
}

type manifestJSONScanner struct {
	data []byte
	dec  *json.Decoder
	doc  *manifestDoc
}

// line is the line where the last token read ends.
func (s *manifestJSONScanner) line() int {
	return manifestJSONLine(s.data, s.dec.InputOffset())
}

func manifestJSONLine(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

func (s *manifestJSONScanner) syntaxError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &Error{Line: manifestJSONLine(s.data, se.Offset), Reason: "invalid JSON: " + strings.TrimPrefix(se.Error(), "json: ")}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Line: manifestJSONLine(s.data, int64(len(s.data))), Reason: "invalid JSON: unexpected end of input"}
	}
	return &Error{Line: s.line(), Reason: "invalid JSON: " + err.Error()}
}

// object reads the members of an object whose '{' was just read.
func (s *manifestJSONScanner) object(n *manifestNode, prefix string) error {
	seen := make(map[string]bool)
	for {
		tok, err := s.dec.Token()
		if err != nil {
			return s.syntaxError(err)
		}
		if tok == json.Delim('}') {
			return nil
		}
		key := tok.(string) // the decoder guarantees a key here
		field := joinManifestField(prefix, key)
		line := s.line()
		c, unknown := n.child(field, key)
		if unknown != nil {
			unknown.Line = line
			return unknown
		}
		if seen[key] {
			return &Error{Field: field, Line: line, Reason: "duplicate field"}
		}
		seen[key] = true
		s.doc.setLine(field, line)
		if err := s.value(c, field); err != nil {
			return err
		}
	}
}

// value reads one value. Objects and arrays the schema describes are
// walked; anything else is skipped, leaving type errors to Unmarshal.
func (s *manifestJSONScanner) value(n *manifestNode, field string) error {
	start := s.dec.InputOffset()
	tok, err := s.dec.Token()
	if err != nil {
		return s.syntaxError(err)
	}
	s.doc.addSpan(int(start), int(s.dec.InputOffset()), field)
	s.doc.setLine(field, s.line()) // array elements; members have their key's line
	switch tok {
	case json.Delim('{'):
		if n != nil && (n.kind == mnTable || n.kind == mnStringMap) {
			return s.object(n, field)
		}
		return s.skip()
	case json.Delim('['):
		if n == nil || n.kind != mnStringList {
			return s.skip()
		}
		for i := 0; s.dec.More(); i++ {
			if err := s.value(nil, field+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		if _, err := s.dec.Token(); err != nil { // ']'
			return s.syntaxError(err)
		}
	}
	return nil
}

// skip consumes the rest of a container whose opening delimiter was read.
func (s *manifestJSONScanner) skip() error {
	for depth := 1; depth > 0; {
		tok, err := s.dec.Token()
		if err != nil {
			return s.syntaxError(err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}
