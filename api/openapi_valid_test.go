package api

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dlclark/regexp2"
	pbjsonschema "github.com/pb33f/jsonschema/v6"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/errors"
)

// ecmaPattern lets the validator compile the flywheel schema's patterns,
// which use lookahead (Go's regexp has none), as the contracts package does.
type ecmaPattern struct{ re *regexp2.Regexp }

func (p ecmaPattern) MatchString(s string) bool {
	ok, err := p.re.MatchString(s)
	return err == nil && ok
}
func (p ecmaPattern) String() string { return p.re.String() }

func ecmaEngine(pattern string) (pbjsonschema.Regexp, error) {
	re, err := regexp2.Compile(pattern, regexp2.ECMAScript|regexp2.Unicode)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = 50 * time.Millisecond
	return ecmaPattern{re}, nil
}

// openAPIValidator loads the served /openapi.json into a real OpenAPI 3.1
// validator (libopenapi), failing the test if the document does not build.
func openAPIValidator(t *testing.T) (validator.Validator, []byte) {
	t.Helper()
	srv, _ := newTestServer(t)
	rec := do(t, srv.Engine, http.MethodGet, "/openapi.json", "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("openapi.json: %d", rec.Code)
	}
	raw := rec.Body.Bytes()
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatalf("libopenapi cannot read the document: %v", err)
	}
	v, errs := validator.NewValidator(doc, config.WithRegexEngine(ecmaEngine))
	if len(errs) > 0 {
		t.Fatalf("validator cannot build the document's model: %v", errs)
	}
	return v, raw
}

func describe(errs []*errors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("\n  " + e.Message + ": " + e.Reason)
		for _, s := range e.SchemaValidationErrors {
			b.WriteString("\n    " + s.FieldPath + " (" + s.KeywordLocation + "): " + s.Reason)
		}
	}
	return b.String()
}

func TestOpenAPI_DocumentIsValidOpenAPI31(t *testing.T) {
	t.Parallel()
	v, _ := openAPIValidator(t)
	if ok, errs := v.ValidateDocument(); !ok {
		t.Fatalf("/openapi.json is not a valid OpenAPI 3.1 document:%s", describe(errs))
	}
}

type openAPIOperation struct {
	OperationID string `json:"operationId"`
	Parameters  []struct {
		Name, In string
	} `json:"parameters"`
	RequestBody *struct {
		Content map[string]struct {
			Schema map[string]any `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`
	Responses map[string]struct {
		Ref     string                     `json:"$ref"`
		Content map[string]json.RawMessage `json:"content"`
	} `json:"responses"`
}

func documentOperations(t *testing.T, raw []byte) map[string]openAPIOperation {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]openAPIOperation `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]openAPIOperation{}
	for path, methods := range doc.Paths {
		for m, op := range methods {
			out[strings.ToUpper(m)+" "+path] = op
		}
	}
	return out
}

func TestOpenAPI_EveryOperationHasAUniqueIDAndItsBodies(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	if missing := srv.Document.Unspecified(); len(missing) > 0 {
		t.Fatalf("the operation table and the routes disagree:\n%s", strings.Join(missing, "\n"))
	}
	_, raw := openAPIValidator(t)
	ops := documentOperations(t, raw)
	ids := map[string]string{}
	for key, op := range ops {
		if op.OperationID == "" {
			t.Errorf("%s has no operationId", key)
		} else if other, dup := ids[op.OperationID]; dup {
			t.Errorf("%s and %s share operationId %s", key, other, op.OperationID)
		}
		ids[op.OperationID] = key
		var success int
		for code, r := range op.Responses {
			if strings.HasPrefix(code, "2") {
				success++
				if len(r.Content) == 0 {
					t.Errorf("%s answers %s without a body schema", key, code)
				}
			}
		}
		if success == 0 {
			t.Errorf("%s documents no success answer", key)
		}
		if op.Responses["default"].Ref != "#/components/responses/Error" {
			t.Errorf("%s does not refer its errors to the error envelope", key)
		}
		if strings.HasPrefix(key, "POST ") && op.RequestBody == nil && !strings.Contains(key, "{") {
			t.Errorf("%s has no request body schema", key)
		}
	}
	want := map[string][]string{
		"GET /operator/v1/rollouts":                   {"status", "limit"},
		"GET /operator/v1/flylab/experiments":         {"status"},
		"GET /operator/v1/turns/{agent_id}/{turn_id}": {"owner"},
	}
	for key, names := range want {
		var have []string
		for _, p := range ops[key].Parameters {
			if p.In == "query" {
				have = append(have, p.Name)
			}
		}
		sort.Strings(have)
		sort.Strings(names)
		if strings.Join(have, ",") != strings.Join(names, ",") {
			t.Errorf("%s query parameters: want %v, have %v", key, names, have)
		}
	}
}

func TestOpenAPI_FlywheelBodiesComeFromTheEmbeddedSchema(t *testing.T) {
	t.Parallel()
	_, raw := openAPIValidator(t)
	ops := documentOperations(t, raw)
	turns := ops["POST /flywheel/turns"].RequestBody
	if turns == nil || turns.Content["application/json"].Schema["$ref"] != "#/components/schemas/ProductionTurnBatch" {
		t.Fatalf("POST /flywheel/turns must take the contract's ProductionTurnBatch: %+v", turns)
	}
	var doc struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, def := range []string{"ProductionTurnBatch", "ProductionTurn", "ToolCallRecord", "ClaimResponse", "RolloutRequest", "RolloutOutput", "Exclusion"} {
		if doc.Components.Schemas[def] == nil {
			t.Errorf("components.schemas lacks the flywheel definition %s", def)
		}
	}
	if strings.Contains(string(raw), "schemas.percepteye.ai") {
		t.Errorf("the document still refers outside itself (schemas.percepteye.ai)")
	}
}
