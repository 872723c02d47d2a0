package ptywright

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	lua "github.com/Shopify/go-lua"
)

// Values cross between Go and Lua as JSON-like data:
//
//   - nil, booleans, numbers and strings map to themselves. A Lua number
//     that is integral and within ±2^53 becomes an int64 on the Go side,
//     any other a float64; NaN and ±Inf have no JSON form and are errors.
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
func (rt *luaRuntime) newLuaToGo(l *lua.State) *luaToGo {
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
	const maxExact = 1 << 53
	if f == math.Trunc(f) && f >= -maxExact && f <= maxExact {
		return int64(f), nil
	}
	return f, nil
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

// pushDecoded pushes a value produced by encoding/json (with UseNumber or
// without) or built from the same kinds.
func pushDecoded(l *lua.State, v any, depth int) error {
	if depth > maxConvertDepth {
		return convertErr("", "nested deeper than %d levels", maxConvertDepth)
	}
	lua.CheckStackWithMessage(l, 3, "value too deep to convert")
	switch v := v.(type) {
	case nil:
		l.PushNil()
	case bool:
		l.PushBoolean(v)
	case string:
		l.PushString(v)
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return convertErr("", "number %s: %v", v, err)
		}
		l.PushNumber(f)
	case float64:
		l.PushNumber(v)
	case int:
		l.PushNumber(float64(v))
	case int64:
		l.PushNumber(float64(v))
	case []any:
		l.CreateTable(len(v), 0)
		for i, e := range v {
			if err := pushDecoded(l, e, depth+1); err != nil {
				l.Pop(1)
				return err
			}
			l.RawSetInt(-2, i+1)
		}
	case map[string]any:
		l.CreateTable(0, len(v))
		for k, e := range v {
			if err := pushDecoded(l, e, depth+1); err != nil {
				l.Pop(1)
				return err
			}
			l.SetField(-2, k)
		}
	default:
		return pushGo(l, reflect.ValueOf(v), depth)
	}
	return nil
}

// pushGo pushes a Go value in its JSON form without encoding it: struct
// fields by json tag, omitempty zero values and nil pointers as nil. Types
// with their own MarshalJSON go through it.
func pushGo(l *lua.State, v reflect.Value, depth int) error {
	if depth > maxConvertDepth {
		return convertErr("", "nested deeper than %d levels", maxConvertDepth)
	}
	lua.CheckStackWithMessage(l, 3, "value too deep to convert")
	if !v.IsValid() {
		l.PushNil()
		return nil
	}
	t := v.Type()
	if t == rawMessageType {
		return pushJSON(l, v.Bytes())
	}
	if t.Implements(marshalerType) && !(v.Kind() == reflect.Pointer && v.IsNil()) {
		raw, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return fmt.Errorf("%w: %v", errConvert, err)
		}
		return pushJSON(l, raw)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			l.PushNil()
			return nil
		}
		return pushGo(l, v.Elem(), depth)
	case reflect.String:
		l.PushString(v.String())
		return nil
	case reflect.Bool:
		l.PushBoolean(v.Bool())
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		l.PushNumber(float64(v.Int()))
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		l.PushNumber(float64(v.Uint()))
		return nil
	case reflect.Float32, reflect.Float64:
		l.PushNumber(v.Float())
		return nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			l.PushNil()
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			break // []byte is base64 in JSON: let encoding/json say so
		}
		l.CreateTable(v.Len(), 0)
		for i := range v.Len() {
			if err := pushGo(l, v.Index(i), depth+1); err != nil {
				l.Pop(1)
				return err
			}
			l.RawSetInt(-2, i+1)
		}
		return nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			break
		}
		if v.IsNil() {
			l.PushNil()
			return nil
		}
		l.CreateTable(0, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			if err := pushGo(l, iter.Value(), depth+1); err != nil {
				l.Pop(1)
				return err
			}
			l.SetField(-2, iter.Key().String())
		}
		return nil
	case reflect.Struct:
		fields, ok := jsonFieldsOf(t)
		if !ok {
			break
		}
		l.CreateTable(0, len(fields))
		for _, f := range fields {
			fv := v.Field(f.index)
			if f.omitted(fv) {
				continue
			}
			if err := pushGo(l, fv, depth+1); err != nil {
				l.Pop(1)
				return err
			}
			l.SetField(-2, f.name)
		}
		return nil
	default:
		return convertErr("", "a Go %s has no JSON form", t)
	}
	// Anything the fast path does not model exactly goes through
	// encoding/json, which is the definition of the JSON form.
	raw, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Errorf("%w: %v", errConvert, err)
	}
	return pushJSON(l, raw)
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	marshalerType  = reflect.TypeFor[json.Marshaler]()
)

type jsonField struct {
	name      string
	index     int
	omitEmpty bool // omitempty: false, 0, nil, empty string/slice/map
	omitZero  bool // omitzero: the zero value
}

// omitted reports whether encoding/json would leave v out.
func (f jsonField) omitted(v reflect.Value) bool {
	if f.omitZero && v.IsZero() {
		return true
	}
	if !f.omitEmpty {
		return false
	}
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

var jsonFieldCache sync.Map // reflect.Type -> []jsonField, or nil if not modelled

// jsonFieldsOf lists the exported fields encoding/json would write. It
// reports false for structs it does not model exactly (embedded fields,
// ",string" options), which then go through encoding/json.
func jsonFieldsOf(t reflect.Type) ([]jsonField, bool) {
	if cached, ok := jsonFieldCache.Load(t); ok {
		fs, _ := cached.([]jsonField)
		return fs, fs != nil
	}
	var fields []jsonField
	ok := true
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			ok = false
			break
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		f := jsonField{name: name, index: i}
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = true
			case "string":
				ok = false
			}
		}
		fields = append(fields, f)
	}
	if !ok {
		fields = nil
	} else if fields == nil {
		fields = []jsonField{}
	}
	jsonFieldCache.Store(t, fields)
	return fields, ok
}

// sortedNames returns m's keys in order, for stable listings.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
