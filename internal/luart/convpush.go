package luart

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"

	lua "ptywright/internal/golua"
)

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
		f, err := jsonNumber(v, "")
		if err != nil {
			return err
		}
		l.PushNumber(f)
	case float64:
		// A double, held exactly whatever its magnitude.
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: number %v has no JSON form", errConvert, v)
		}
		l.PushNumber(v)
	case int:
		return pushExactInt(l, int64(v))
	case int64:
		return pushExactInt(l, v)
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
		return pushExactInt(l, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.Uint() > maxExactInt {
			return errBeyondExact("", strconv.FormatUint(v.Uint(), 10))
		}
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
