package contracts

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Violation is one way an instance breaks a schema.
type Violation struct {
	// Path is an RFC 6901 JSON pointer into the instance ("" is the root).
	Path string `json:"path"`
	// Message says what rule was broken, in English.
	Message string `json:"message"`
}

// Schema is a compiled JSON Schema.
type Schema struct {
	compiled *jsonschema.Schema
}

// ErrMalformedJSON wraps a body that is not JSON at all.
var ErrMalformedJSON = errors.New("malformed JSON")

// patternTimeout bounds one regular-expression match, so a hostile input
// cannot hang a request on a backtracking pattern.
const patternTimeout = 50 * time.Millisecond

// ecmaRegexp adapts regexp2 (ECMA-262 syntax, lookahead included) to the
// validator. A match that errors (timeout) counts as no match: fail closed.
type ecmaRegexp struct {
	re *regexp2.Regexp
}

func (r ecmaRegexp) MatchString(s string) bool {
	ok, err := r.re.MatchString(s)
	return err == nil && ok
}

func (r ecmaRegexp) String() string { return r.re.String() }

func compileECMA(pattern string) (jsonschema.Regexp, error) {
	re, err := regexp2.Compile(pattern, regexp2.ECMAScript|regexp2.Unicode)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = patternTimeout
	return ecmaRegexp{re: re}, nil
}

// NewCompiler returns a draft 2020-12 compiler with ECMA-262 patterns and
// format assertions on.
func NewCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseRegexpEngine(compileECMA)
	c.AssertFormat()
	return c
}

// CompileJSON compiles a standalone schema document given as JSON.
func CompileJSON(url string, raw []byte) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", url, err)
	}
	c := NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", url, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", url, err)
	}
	return &Schema{compiled: s}, nil
}

// ValidateJSON parses body and validates it. A body that is not JSON gives
// an error wrapping ErrMalformedJSON; a valid one gives no violations.
func (s *Schema) ValidateJSON(body []byte) ([]Violation, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformedJSON, err)
	}
	return s.Validate(inst), nil
}

// Validate checks an instance decoded with jsonschema.UnmarshalJSON (numbers
// as json.Number) or built from plain Go values.
func (s *Schema) Validate(instance any) []Violation {
	err := s.compiled.Validate(instance)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []Violation{{Path: "", Message: err.Error()}}
	}
	var out []Violation
	collectLeaves(verr, &out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return dedupe(out)
}

var printer = message.NewPrinter(language.English)

// collectLeaves flattens the error tree to the violations that caused it.
func collectLeaves(e *jsonschema.ValidationError, out *[]Violation) {
	if len(e.Causes) == 0 {
		*out = append(*out, Violation{Path: Pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(printer)})
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}

func dedupe(in []Violation) []Violation {
	out := in[:0]
	seen := map[Violation]bool{}
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// Pointer renders path tokens as an RFC 6901 JSON pointer.
func Pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		sb.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return sb.String()
}
