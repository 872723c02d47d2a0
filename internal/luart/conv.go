package luart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	lua "ptywright/internal/golua"
)

// Values cross between Go and Lua as JSON-like data:
//
//   - nil, booleans, numbers and strings map to themselves. A Lua number
//     is an IEEE-754 double: one that is integral becomes an int64 on the
//     Go side, any other a float64; NaN and ±Inf have no JSON form and
//     are errors.
//   - The runtime never alters a number silently. A double holds every
//     integer up to 2^53 (9007199254740992) but not beyond (9007199254740993
//     would arrive as ...992), so an integer beyond ±2^53 is an error,
//     naming its path: a JSON integer literal (no ".", "e" or "E") coming
//     in, or a Go integer. A literal written with a fraction or an exponent
//     (6.02214076e+23, 1.7976931348623157e+308) is a double, which Lua
//     holds exactly: it comes in whatever its magnitude, and one beyond the
//     range of a double (1e999) is an error. A Lua number going out that is
//     beyond ±2^53 is a double and goes out as one, in JSON floating form
//     (9.007199254740994e+15, a json.Number on the Go side), so it comes
//     back in unaltered. Large integers that must stay exact travel as
//     strings.
//   - A table whose keys are all positive integers is an array, its holes
//     null (as JSON null decodes to a hole); one whose keys are all
//     strings is an object. A table with other keys (mixed, 0, fractions,
//     booleans...) or an array more than half holes with keys beyond 10
//     is an error naming the path.
//   - An empty table is an empty object ({}), except where the host
//     expects a list (a plan's actions), where it reads as an empty list.
//     ptywright.empty_array is a table that always converts to [].
//   - JSON null becomes nil, so null members of objects are absent and a
//     null inside an array is a hole (Lua's # may stop there; ipairs does).
//   - Functions, userdata and threads have no JSON form and are errors, as
//     are cycles; nesting deeper than maxConvertDepth is an error too.
//
// Go structs go to Lua in their JSON form: fields named by their json tags,
// nil pointers and omitempty zero values absent (nil), never empty tables.

// maxConvertDepth bounds nesting in both directions.
const maxConvertDepth = 100

// maxSparseArray is the largest key of an array whose holes are always
// filled with null; beyond it an array may be at most half holes, so
// {[1e9] = x} cannot allocate a billion nulls.
const maxSparseArray = 10

// errConvert is wrapped by every conversion error.
var errConvert = errors.New("cannot convert")

func convertErr(path, format string, args ...any) error {
	if path == "" {
		path = "value"
	}
	return fmt.Errorf("%w: %s: %s", errConvert, path, fmt.Sprintf(format, args...))
}

// luaToGo converts the Lua value at idx. emptyArray, when non-nil, is the
// ptywright.empty_array sentinel table.
type luaToGo struct {
	l          *lua.State
	emptyArray any
	onPath     map[any]bool
	// nodes counts the values converted, for budget charges.
	nodes int
	// budget, when set, bounds what the conversion builds: bytes counts
	// the Go values made and the text their JSON form will take. A table
	// referenced from many places is converted at each, so a small state
	// can convert to far more than it holds ({t, t} nested forty deep).
	budget *luaBudget
	bytes  int64
}

func newLuaToGo(l *lua.State, emptyArray any) *luaToGo {
	return &luaToGo{l: l, emptyArray: emptyArray}
}

// newLuaToGo is a conversion bounded by the state's memory budget; only
// for use inside a call (it raises the budget error).
func (rt *Runtime) newLuaToGo(l *lua.State) *luaToGo {
	c := newLuaToGo(l, rt.emptyArray)
	c.budget = &rt.budget
	return c
}

// convertNodeBytes is what one converted value costs in Go, about.
const convertNodeBytes = 32

// value converts the value at idx; path names it in errors ("metadata",
// "actions[2].value").
func (c *luaToGo) value(idx int, path string) (any, error) {
	return c.convert(c.l.AbsIndex(idx), path, 0)
}

func (c *luaToGo) convert(idx int, path string, depth int) (any, error) {
	l := c.l
	c.nodes++
	if c.budget != nil {
		c.bytes += convertNodeBytes
		if l.TypeOf(idx) == lua.TypeString {
			s, _ := l.ToString(idx)
			c.bytes += int64(len(s))
		}
		if c.bytes > c.budget.limits.Memory {
			c.budget.tripMemory(l)
		}
	}
	switch t := l.TypeOf(idx); t {
	case lua.TypeNil, lua.TypeNone:
		return nil, nil
	case lua.TypeBoolean:
		return l.ToBoolean(idx), nil
	case lua.TypeNumber:
		f, _ := l.ToNumber(idx)
		return luaNumber(f, path)
	case lua.TypeString:
		s, _ := l.ToString(idx)
		return s, nil
	case lua.TypeTable:
		return c.table(idx, path, depth)
	default:
		return nil, convertErr(path, "a Lua %s has no JSON form", t)
	}
}

// luaNumber applies the integer rule to a Lua number.
func luaNumber(f float64, path string) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, convertErr(path, "number %v has no JSON form", f)
	}
	if f < -maxExactInt || f > maxExactInt {
		// A double, not an integer a caller could read back exactly:
		// floating form, so it is read back as the same double.
		return json.Number(strconv.FormatFloat(f, 'e', -1, 64)), nil
	}
	if f == math.Trunc(f) {
		return int64(f), nil
	}
	return f, nil
}

// maxExactInt is 2^53, the largest magnitude up to which a float64 (a Lua
// number) holds every integer exactly.
const maxExactInt = 1 << 53

// errBeyondExact is the error for a number outside ±2^53.
func errBeyondExact(path, num string) error {
	return convertErr(path, "number %s is beyond ±2^53 (9007199254740992), the range a Lua number holds exactly; pass it as a string", num)
}

// jsonNumber converts a JSON number for Lua: a literal with a fraction or
// an exponent is a double, taken as written; an integer literal beyond
// ±2^53 is refused (every double of that magnitude is an integer, most of
// them not the one written).
func jsonNumber(n json.Number, path string) (float64, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, convertErr(path, "number %s: %v", n, err)
	}
	if strings.ContainsAny(string(n), ".eE") {
		if math.IsInf(f, 0) {
			return 0, convertErr(path, "number %s is beyond the range of a double", n)
		}
		return f, nil
	}
	if math.IsInf(f, 0) || f < -maxExactInt || f > maxExactInt {
		return 0, errBeyondExact(path, string(n))
	}
	if f == maxExactInt || f == -maxExactInt {
		// 2^53+1 parses to 2^53: compare what was written, exactly.
		r, ok := new(big.Rat).SetString(string(n))
		if !ok || r.Cmp(new(big.Rat).SetFloat64(f)) != 0 {
			return 0, errBeyondExact(path, string(n))
		}
	}
	return f, nil
}

// checkNumbers finds the first JSON number in v (decoded with UseNumber)
// that Lua cannot hold exactly, naming its path below root.
func checkNumbers(v any, path string) error {
	switch v := v.(type) {
	case json.Number:
		_, err := jsonNumber(v, path)
		return err
	case []any:
		for i, e := range v {
			if err := checkNumbers(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, k := range SortedNames(v) {
			if err := checkNumbers(v[k], joinPath(path, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// pushExactInt pushes an integer if Lua holds it exactly.
func pushExactInt(l *lua.State, i int64) error {
	if i < -maxExactInt || i > maxExactInt {
		return errBeyondExact("", strconv.FormatInt(i, 10))
	}
	l.PushNumber(float64(i))
	return nil
}

func (c *luaToGo) table(idx int, path string, depth int) (any, error) {
	l := c.l
	if depth >= maxConvertDepth {
		return nil, convertErr(path, "nested deeper than %d levels", maxConvertDepth)
	}
	id := l.ToValue(idx)
	if c.emptyArray != nil && id == c.emptyArray {
		return []any{}, nil
	}
	if c.onPath[id] {
		return nil, convertErr(path, "table contains itself (a cycle)")
	}
	if c.onPath == nil {
		c.onPath = map[any]bool{}
	}
	c.onPath[id] = true
	defer delete(c.onPath, id)
	lua.CheckStackWithMessage(l, 4, "table too deep to convert")

	// One pass classifies the keys: all strings (object) or all positive
	// integers (array candidate).
	var strKeys, intKeys int
	maxInt := 0
	var bad string
	l.PushNil()
	for l.Next(idx) {
		switch l.TypeOf(-2) {
		case lua.TypeString:
			strKeys++
		case lua.TypeNumber:
			f, _ := l.ToNumber(-2)
			if f >= 1 && f == math.Trunc(f) && f <= math.MaxInt32 {
				intKeys++
				maxInt = max(maxInt, int(f))
			} else if bad == "" {
				bad = fmt.Sprintf("number key %v", f)
			}
		default:
			if bad == "" {
				bad = lua.TypeNameOf(l, -2) + " key"
			}
		}
		l.Pop(1)
	}
	switch {
	case bad != "":
		return nil, convertErr(path, "table has a %s; JSON objects need string keys and arrays keys 1..n", bad)
	case strKeys > 0 && intKeys > 0:
		return nil, convertErr(path, "table mixes array (integer) and object (string) keys")
	case intKeys > 0 && maxInt > maxSparseArray && maxInt > 2*intKeys:
		return nil, convertErr(path, "array is too sparse (largest key %d, only %d keys)", maxInt, intKeys)
	case intKeys > 0:
		arr := make([]any, maxInt)
		for i := range arr {
			l.RawGetInt(idx, i+1)
			v, err := c.convert(l.AbsIndex(-1), fmt.Sprintf("%s[%d]", path, i+1), depth+1)
			l.Pop(1)
			if err != nil {
				return nil, err
			}
			arr[i] = v
		}
		return arr, nil
	}
	obj := make(map[string]any, strKeys)
	l.PushNil()
	for l.Next(idx) {
		k, _ := l.ToString(-2)
		v, err := c.convert(l.AbsIndex(-1), joinPath(path, k), depth+1)
		if err != nil {
			l.Pop(2)
			return nil, err
		}
		obj[k] = v
		l.Pop(1)
	}
	return obj, nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// luaJSON converts the value at idx and marshals it, without HTML
// escaping, so plugin text reaches JSON decoders as written. Strings that
// are not valid UTF-8 have their bad bytes replaced by U+FFFD.
func (c *luaToGo) json(idx int, path string) (json.RawMessage, error) {
	v, err := c.value(idx, path)
	if err != nil {
		return nil, err
	}
	if c.budget != nil {
		c.budget.alloc(c.l, int(c.bytes)) // the text, before it is written
	}
	return marshalJSON(v)
}

func marshalJSON(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// pushJSON decodes raw and pushes it; empty raw pushes nil.
func pushJSON(l *lua.State, raw []byte) error {
	v, err := decodeJSON(raw)
	if err != nil {
		return err
	}
	return pushDecoded(l, v, 0)
}

// decodeJSON decodes one JSON value with numbers kept exact; empty input
// is nil.
func decodeJSON(raw []byte) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: invalid JSON: %v", errConvert, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: invalid JSON: trailing data", errConvert)
	}
	return v, nil
}

// countNodes counts the values in a decoded JSON value, for budget
// charges.
func countNodes(v any) int {
	switch v := v.(type) {
	case []any:
		n := 1
		for _, e := range v {
			n += countNodes(e)
		}
		return n
	case map[string]any:
		n := 1
		for _, e := range v {
			n += countNodes(e)
		}
		return n
	}
	return 1
}

// SortedNames returns m's keys in order, for stable listings.
func SortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
