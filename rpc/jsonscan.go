package rpc

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// One pass over a request. encoding/json reads a request frame several
// times over: json.Valid, then each json.Unmarshal checks the whole input
// again before it decodes it, into the frame's members, then the params'
// members (checkMembers), then the params' struct. The scanner here checks
// JSON the way json.Valid does and splits an object into its members in
// the same pass, so a common request is read once before its params
// struct is decoded. Anything it does not take on as is (an escape in a
// member name, a name twice, a value nested deeper than scanMaxDepth,
// invalid JSON) it leaves to the slow path, which decodes it in full:
// every error message comes from there.

// scanMaxDepth bounds how deep scanValue follows arrays and objects
// (recursion); deeper values are left to encoding/json.
const scanMaxDepth = 256

// member is one member of a JSON object: its name and its value as JSON.
type member struct {
	name  string
	value json.RawMessage
}

// objectMembers splits raw, one JSON object and nothing after it but
// whitespace, into its members, checking every value. ok is false when raw
// is not valid JSON, not an object, or has a name with an escape, with
// invalid UTF-8 (which encoding/json replaces) or twice (or more members
// than maxFastMembers): what the slow path decides.
func objectMembers(raw []byte) (members []member, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return nil, skipSpace(raw, i+1) == len(raw)
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return nil, false
		}
		end := scanString(raw, i)
		name := raw[i+1 : max(end-1, i+1)]
		if end < 0 || bytes.IndexByte(name, '\\') >= 0 || !utf8.Valid(name) || len(members) == maxFastMembers {
			return nil, false
		}
		for _, m := range members {
			if m.name == string(name) {
				return nil, false
			}
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
		start := i
		if i = scanValue(raw, i, 1); i < 0 {
			return nil, false
		}
		members = append(members, member{name: string(name), value: raw[start:i:i]})
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case '}':
			return members, skipSpace(raw, i+1) == len(raw)
		case ',':
			i = skipSpace(raw, i+1)
		default:
			return nil, false
		}
	}
}

// maxFastMembers bounds the members objectMembers takes on (it looks for a
// name twice member by member).
const maxFastMembers = 32

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
		i++
	}
	return i
}

// scanValue returns where the JSON value that starts at s[i] ends, or -1
// if none does (or it nests more than scanMaxDepth levels below depth).
func scanValue(s []byte, i, depth int) int {
	if i >= len(s) {
		return -1
	}
	switch c := s[i]; c {
	case '"':
		return scanString(s, i)
	case '{', '[':
		if depth >= scanMaxDepth {
			return -1
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipSpace(s, i+1)
		if i < len(s) && s[i] == closer {
			return i + 1
		}
		for {
			if c == '{' {
				if i >= len(s) || s[i] != '"' {
					return -1
				}
				if i = scanString(s, i); i < 0 {
					return -1
				}
				if i = skipSpace(s, i); i >= len(s) || s[i] != ':' {
					return -1
				}
				i = skipSpace(s, i+1)
			}
			if i = scanValue(s, i, depth+1); i < 0 {
				return -1
			}
			if i = skipSpace(s, i); i >= len(s) {
				return -1
			}
			switch s[i] {
			case closer:
				return i + 1
			case ',':
				i = skipSpace(s, i+1)
			default:
				return -1
			}
		}
	case 't':
		return scanLiteral(s, i, "true")
	case 'f':
		return scanLiteral(s, i, "false")
	case 'n':
		return scanLiteral(s, i, "null")
	}
	return scanNumber(s, i)
}

func scanLiteral(s []byte, i int, lit string) int {
	if len(s)-i < len(lit) || string(s[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanString returns where the string that starts with the quote at s[i]
// ends (after its closing quote), or -1. As in json.Valid, bytes of 0x20
// and above are taken as they are: the frame's UTF-8 is checked apart.
func scanString(s []byte, i int) int {
	for i++; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			i++
			if i >= len(s) {
				return -1
			}
			switch s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(s)-i <= 4 {
					return -1
				}
				for _, h := range s[i+1 : i+5] {
					if !isHex(h) {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanNumber returns where the number that starts at s[i] ends, or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(s []byte, i int) int {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digits(s, i)
	default:
		return -1
	}
	if i < len(s) && s[i] == '.' {
		j := digits(s, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(s []byte, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// parseRequestFast is parseRequest for a frame that is one request
// object with plain member names, the jsonrpc, method and optional id and
// params members each once, "2.0" written as such, a method without
// escapes, and params an object, an array or null. ok is false for any
// other frame, valid or not, which parseFrame then reads the slow way.
// The frame must be valid UTF-8.
func parseRequestFast(frame []byte) (it item, ok bool) {
	members, ok := objectMembers(frame)
	if !ok {
		return item{}, false
	}
	var version, method bool
	for _, m := range members {
		v := m.value
		switch m.name {
		case "jsonrpc":
			if string(v) != `"`+wireVersion+`"` {
				return item{}, false
			}
			version = true
		case "id":
			switch v[0] {
			case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
				it.req.id = v
			default:
				return item{}, false
			}
		case "method":
			if v[0] != '"' || len(v) == 2 || bytes.IndexByte(v, '\\') >= 0 {
				return item{}, false
			}
			it.req.method = string(v[1 : len(v)-1])
			method = true
		case "params":
			switch v[0] {
			case '{', '[':
				it.req.params = v
			case 'n':
			default:
				return item{}, false
			}
		default:
			return item{}, false
		}
	}
	return it, version && method
}
