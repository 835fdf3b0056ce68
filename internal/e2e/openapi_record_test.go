package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// RecordOpenAPIEnv names a file that Stack.Do appends each REST exchange
// to (JSON lines), so api's replay test can check recorded end-to-end
// traffic against /openapi.json. Record with, for example:
//
//	GATEHOUSE_RECORD_OPENAPI=$PWD/api/testdata/openapi-exchanges.jsonl \
//	  go test ./internal/e2e -run '^(TestFlyLab_PipelineOverHTTP|TestPing_RoundTripThroughAPIAndTemporal)$'
const RecordOpenAPIEnv = "GATEHOUSE_RECORD_OPENAPI"

// Exchange is one recorded request and its answer. Credentials are
// replaced by a placeholder; bodies are kept as sent.
type Exchange struct {
	Method         string            `json:"method"`
	Path           string            `json:"path"`
	RequestHeaders map[string]string `json:"request_headers,omitempty"`
	RequestBody    string            `json:"request_body,omitempty"`
	Status         int               `json:"status"`
	ContentType    string            `json:"content_type"`
	ResponseBody   string            `json:"response_body"`
}

// recordedPrefixes are the documented REST surface; the MCP endpoints,
// console, upload URLs and LLM gateway are outside the OpenAPI document.
var recordedPrefixes = []string{"/v1/", "/operator/v1/", "/flywheel/", "/healthz", "/readyz"}

// maxPerShape and maxBodyBytes keep the file small: this many exchanges
// per method, status and path shape (ids folded), none whose request or
// answer is larger (a saved evidence export runs to megabytes).
const (
	maxPerShape  = 3
	maxBodyBytes = 96 << 10
)

// recordedSecret matches credential plaintexts (agent keys, operator
// tokens, capabilities, lease and gateway tokens), which are replaced so
// none lands in the repository.
var recordedSecret = regexp.MustCompile(`\b(mk|op|cap|lt|gw|rk)_[A-Za-z0-9_-]{16,}`)

var recorder struct {
	sync.Mutex
	seen map[string]int
}

func recordExchange(req *http.Request, body any, resp Response) {
	file := os.Getenv(RecordOpenAPIEnv)
	reqText := requestText(body)
	if file == "" || !documentedPath(req.URL.Path) || len(resp.Body) > maxBodyBytes || len(reqText) > maxBodyBytes {
		return
	}
	shape := req.Method + " " + pathShape(req.URL.Path) + " " + http.StatusText(resp.Status)
	recorder.Lock()
	defer recorder.Unlock()
	if recorder.seen == nil {
		recorder.seen = map[string]int{}
	}
	if recorder.seen[shape]++; recorder.seen[shape] > maxPerShape {
		return
	}
	ex := Exchange{Method: req.Method, Path: req.URL.RequestURI(), Status: resp.Status,
		ContentType: resp.Header.Get("Content-Type"), ResponseBody: recordedSecret.ReplaceAllString(string(resp.Body), "${1}_recorded"),
		RequestBody: recordedSecret.ReplaceAllString(reqText, "${1}_recorded")}
	for _, h := range []string{"Content-Type", "Authorization", "Flywheel-Lease-Token", "Idempotency-Key"} {
		if v := req.Header.Get(h); v != "" {
			if ex.RequestHeaders == nil {
				ex.RequestHeaders = map[string]string{}
			}
			ex.RequestHeaders[h] = redactCredential(h, v)
		}
	}
	line, err := json.Marshal(ex)
	if err != nil {
		return
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }()
	_, _ = f.Write(append(line, '\n'))
}

func documentedPath(p string) bool {
	for _, prefix := range recordedPrefixes {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// pathShape folds segments that look like ids (any digit) into "*".
func pathShape(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.IndexFunc(s, unicode.IsDigit) >= 0 {
			parts[i] = "*"
		}
	}
	return strings.Join(parts, "/")
}

func redactCredential(header, v string) string {
	switch header {
	case "Authorization":
		return "Bearer recorded"
	case "Flywheel-Lease-Token":
		return "recorded"
	}
	return v
}

func requestText(body any) string {
	switch b := body.(type) {
	case nil:
		return ""
	case string:
		return b
	case []byte:
		return string(b)
	default:
		raw, _ := json.Marshal(b)
		return string(raw)
	}
}
