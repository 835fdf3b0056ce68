package api

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	validator "github.com/pb33f/libopenapi-validator"
)

// recordedExchanges is written by the end-to-end tests (see
// internal/e2e/openapi_record_test.go): real requests and answers of the
// production code paths, Temporal included.
const recordedExchanges = "testdata/openapi-exchanges.jsonl"

type exchange struct {
	Method         string            `json:"method"`
	Path           string            `json:"path"`
	RequestHeaders map[string]string `json:"request_headers"`
	RequestBody    string            `json:"request_body"`
	Status         int               `json:"status"`
	ContentType    string            `json:"content_type"`
	ResponseBody   string            `json:"response_body"`
}

func loadExchanges(t *testing.T) []exchange {
	t.Helper()
	f, err := os.Open(recordedExchanges)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // test cleanup: a close error fails nothing
	var out []exchange
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var ex exchange
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatalf("%s line %d: %v", recordedExchanges, len(out)+1, err)
		}
		out = append(out, ex)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (ex exchange) request() *http.Request {
	req := httptest.NewRequest(ex.Method, ex.Path, strings.NewReader(ex.RequestBody))
	for k, v := range ex.RequestHeaders {
		req.Header.Set(k, v)
	}
	return req
}

func (ex exchange) response(req *http.Request) *http.Response {
	return &http.Response{StatusCode: ex.Status, Header: http.Header{"Content-Type": {ex.ContentType}},
		Body: io.NopCloser(strings.NewReader(ex.ResponseBody)), Request: req}
}

// check validates the answer against the document, and the request too
// when it succeeded (a refused request was often meant to break the rules).
func (ex exchange) check(v validator.Validator) (bool, string) {
	req := ex.request()
	if ex.Status < 400 {
		if ok, errs := v.ValidateHttpRequest(req); !ok {
			return false, "request:" + describe(errs)
		}
		req = ex.request()
	}
	if ok, errs := v.ValidateHttpResponse(req, ex.response(req)); !ok {
		return false, "response:" + describe(errs)
	}
	return true, ""
}

func TestOpenAPI_RecordedEndToEndExchangesMatchTheDocument(t *testing.T) {
	t.Parallel()
	v, _ := openAPIValidator(t)
	exchanges := loadExchanges(t)
	operations := map[string]bool{}
	for _, ex := range exchanges {
		if ok, why := ex.check(v); !ok {
			t.Errorf("%s %s → %d does not match /openapi.json: %s\n  body: %.300s", ex.Method, ex.Path, ex.Status, why, ex.ResponseBody)
		}
		if ex.Status < 300 {
			operations[ex.Method+" "+ginRoute(ex.Path)] = true
		}
	}
	// The recording must exercise the surface, not a corner of it.
	if len(exchanges) < 30 || len(operations) < 12 {
		t.Fatalf("only %d exchanges over %d successful operation shapes recorded; re-record (see %s)", len(exchanges), len(operations), recordedExchanges)
	}
}

// ginRoute drops the query so a shape counts once per path.
func ginRoute(p string) string { path, _, _ := strings.Cut(p, "?"); return path }

func TestOpenAPI_ReplayRejectsAnAnswerThatBreaksTheDocument(t *testing.T) {
	t.Parallel()
	v, _ := openAPIValidator(t)
	var tried, keys int
	for _, ex := range loadExchanges(t) {
		if ex.Status >= 300 || !strings.HasPrefix(ex.ContentType, "application/json") {
			continue
		}
		var body map[string]any
		if json.Unmarshal([]byte(ex.ResponseBody), &body) != nil || len(body) == 0 {
			continue
		}
		// Every documented JSON answer is an object: an array must fail.
		broken := ex
		broken.ResponseBody = "[]"
		if ok, _ := broken.check(v); ok {
			t.Errorf("%s %s: an array answer passed the document", ex.Method, ex.Path)
		}
		// A credential without its id breaks the Credential schema.
		if _, isKey := body["plaintext"]; isKey {
			delete(body, "id")
			raw, _ := json.Marshal(body)
			broken.ResponseBody = string(raw)
			if ok, _ := broken.check(v); ok {
				t.Errorf("%s %s: a credential without id passed the document", ex.Method, ex.Path)
			}
			keys++
		}
		tried++
	}
	if tried == 0 || keys == 0 {
		t.Fatalf("broke %d recorded JSON answers, %d credentials: need both", tried, keys)
	}
}
