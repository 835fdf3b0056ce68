package flylab

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// CanonicalJSON serializes v as RFC 8785 JSON Canonicalization Scheme (JCS)
// text: object members sorted by the UTF-16 code units of their names, no
// insignificant whitespace, numbers in the ECMAScript shortest round-trip
// form, strings with only the escapes JSON.stringify produces.
//
// Go values are read through their encoding/json field names ("-" skips a
// field, omitempty omits empty values). Supported kinds: structs, maps with
// string keys, slices, arrays, pointers, interfaces, strings, booleans,
// integers up to 2^53 and finite floats; json.Number is read as a float.
// NaN, infinities and invalid UTF-8 are errors (INVALID_INPUT). Embedded
// structs are not flattened, so hash a Protocol rather than an Experiment.
func CanonicalJSON(v any) ([]byte, error) {
	enc := canonicalEncoder{buf: make([]byte, 0, 1024)}
	if err := enc.value(reflect.ValueOf(v)); err != nil {
		return nil, err
	}
	return enc.buf, nil
}

type canonicalEncoder struct{ buf []byte }

var jsonNumberType = reflect.TypeFor[json.Number]()

func (e *canonicalEncoder) value(v reflect.Value) error {
	if !v.IsValid() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if v.Type() == jsonNumberType {
		f, err := strconv.ParseFloat(v.String(), 64)
		if err != nil {
			return invalidInput("json", "number is not a valid JSON number", "value", v.String())
		}
		return e.float(f)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.value(v.Elem())
	case reflect.Bool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return e.integer(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.Uint() > 1<<53 {
			return invalidInput("json", "integer exceeds 2^53 and cannot be canonicalized exactly")
		}
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return e.float(v.Float())
	case reflect.String:
		return e.str(v.String())
	case reflect.Slice:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.array(v)
	case reflect.Array:
		return e.array(v)
	case reflect.Map:
		return e.object(v)
	case reflect.Struct:
		return e.structure(v)
	default:
		return invalidInput("json", "value of kind "+v.Kind().String()+" cannot be canonicalized")
	}
	return nil
}

func (e *canonicalEncoder) integer(i int64) error {
	if i > 1<<53 || i < -(1<<53) {
		return invalidInput("json", "integer exceeds 2^53 and cannot be canonicalized exactly")
	}
	e.buf = strconv.AppendInt(e.buf, i, 10)
	return nil
}

// float writes f as ECMAScript Number.prototype.toString would.
func (e *canonicalEncoder) float(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return invalidInput("json", "NaN and infinite numbers have no JSON form")
	}
	if f == 0 {
		e.buf = append(e.buf, '0')
		return nil
	}
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		e.buf = strconv.AppendFloat(e.buf, f, 'f', -1, 64)
		return nil
	}
	start := len(e.buf)
	e.buf = strconv.AppendFloat(e.buf, f, 'e', -1, 64)
	// Go writes e-07 where ECMAScript writes e-7.
	exp := strings.IndexByte(string(e.buf[start:]), 'e') + start
	if e.buf[exp+2] == '0' {
		e.buf = append(e.buf[:exp+2], e.buf[exp+3:]...)
	}
	return nil
}

func (e *canonicalEncoder) str(s string) error {
	if !utf8.ValidString(s) {
		return invalidInput("json", "string is not valid UTF-8")
	}
	const hex = "0123456789abcdef"
	e.buf = append(e.buf, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			e.buf = append(e.buf, '\\', c)
		case c >= 0x20:
			e.buf = append(e.buf, c)
		case c == '\b':
			e.buf = append(e.buf, '\\', 'b')
		case c == '\t':
			e.buf = append(e.buf, '\\', 't')
		case c == '\n':
			e.buf = append(e.buf, '\\', 'n')
		case c == '\f':
			e.buf = append(e.buf, '\\', 'f')
		case c == '\r':
			e.buf = append(e.buf, '\\', 'r')
		default:
			e.buf = append(e.buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	e.buf = append(e.buf, '"')
	return nil
}

func (e *canonicalEncoder) array(v reflect.Value) error {
	switch s := v.Interface().(type) {
	case []float64: // the trajectory columns: skip reflection per element
		e.buf = append(e.buf, '[')
		for i, f := range s {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if err := e.float(f); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, ']')
		return nil
	case []bool:
		e.buf = append(e.buf, '[')
		for i, b := range s {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = strconv.AppendBool(e.buf, b)
		}
		e.buf = append(e.buf, ']')
		return nil
	}
	e.buf = append(e.buf, '[')
	for i := range v.Len() {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.value(v.Index(i)); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

func (e *canonicalEncoder) object(v reflect.Value) error {
	if v.Type().Key().Kind() != reflect.String {
		return invalidInput("json", "map keys must be strings")
	}
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, k.String())
	}
	slices.SortFunc(keys, compareUTF16)
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.str(k); err != nil {
			return err
		}
		e.buf = append(e.buf, ':')
		if err := e.value(v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key()))); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

func (e *canonicalEncoder) structure(v reflect.Value) error {
	e.buf = append(e.buf, '{')
	first := true
	for _, f := range fieldsOf(v.Type()) {
		fv := v.Field(f.index)
		if f.omitEmpty && isEmptyJSONValue(fv) {
			continue
		}
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		if err := e.str(f.name); err != nil {
			return err
		}
		e.buf = append(e.buf, ':')
		if err := e.value(fv); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

// isEmptyJSONValue mirrors encoding/json's omitempty rule.
func isEmptyJSONValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

type canonicalField struct {
	name      string
	index     int
	omitEmpty bool
}

// fieldCache memoizes each struct type's fields in canonical order. Reading
// it never changes output, so sharing it between goroutines is safe.
var fieldCache sync.Map

func fieldsOf(t reflect.Type) []canonicalField {
	if cached, ok := fieldCache.Load(t); ok {
		return cached.([]canonicalField)
	}
	var fields []canonicalField
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fields = append(fields, canonicalField{name: name, index: i, omitEmpty: strings.Contains(opts, "omitempty")})
	}
	slices.SortFunc(fields, func(a, b canonicalField) int { return compareUTF16(a.name, b.name) })
	fieldCache.Store(t, fields)
	return fields
}

// compareUTF16 orders strings by UTF-16 code units, as RFC 8785 requires.
func compareUTF16(a, b string) int {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return int(ua[i]) - int(ub[i])
		}
	}
	return len(ua) - len(ub)
}
