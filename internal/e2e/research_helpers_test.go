package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models"
)

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// researchAgent is an MCP client session on /mcp/research with one credential.
type researchAgent struct {
	t    *testing.T
	sess *mcp.ClientSession
	// retrying makes must retry answers the server marks retryable, as a
	// careful agent does while a worker is being replaced.
	retrying bool
	// stack is where the session runs; reviewer is the session of a
	// reviewer credential of its own, minted on first use.
	stack    *Stack
	reviewer *researchAgent
}

// reviewerAgent is a session with a reviewer's own key: the producer's
// key may not review what it requested a review of.
func (a *researchAgent) reviewerAgent() *researchAgent {
	a.t.Helper()
	if a.reviewer == nil {
		a.reviewer = connectResearch(a.t, a.stack, mintAgentKey(a.t, a.stack, uniq("reviewer"), true))
	}
	return a.reviewer
}

// connectResearch opens a real MCP client session with token.
func connectResearch(t *testing.T, s *Stack, token string) *researchAgent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hc := &http.Client{Timeout: 60 * time.Second, Transport: bearer{token: token, next: http.DefaultTransport}}
	c := mcp.NewClient(&mcp.Implementation{Name: "gatehouse-e2e-agent", Version: "test"}, nil)
	sess, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.APIURL + "/mcp/research", HTTPClient: hc,
		DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect MCP: %v", err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	return &researchAgent{t: t, sess: sess, stack: s}
}

// toolResult is a decoded tool result: the JSON object, or its error.
type toolResult struct {
	IsError bool
	Body    map[string]any
	Raw     string
}

// Code returns the error code of an error result.
func (r toolResult) Code() string { return str(dig(r.Body, "error", "code")) }

// call runs a tool and decodes its JSON text content.
func (a *researchAgent) call(name string, args map[string]any) toolResult {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := a.sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s: protocol error: %v", name, err)
	}
	if len(res.Content) != 1 {
		a.t.Fatalf("%s: %d content blocks", name, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		a.t.Fatalf("%s: content is %T", name, res.Content[0])
	}
	out := toolResult{IsError: res.IsError, Raw: text.Text}
	if err := json.Unmarshal([]byte(text.Text), &out.Body); err != nil {
		a.t.Fatalf("%s: result is not a JSON object: %q", name, text.Text)
	}
	return out
}

// must runs a tool that must succeed.
func (a *researchAgent) must(name string, args map[string]any) map[string]any {
	a.t.Helper()
	if a.retrying {
		out, _ := a.mustRetrying(name, args)
		return out
	}
	r := a.call(name, args)
	if r.IsError {
		a.t.Fatalf("%s(%v) failed: %s", name, args, r.Raw)
	}
	return r.Body
}

// refused runs a tool that must fail with code.
func (a *researchAgent) refused(code, name string, args map[string]any) toolResult {
	a.t.Helper()
	r := a.call(name, args)
	if !r.IsError || r.Code() != code {
		a.t.Fatalf("%s(%v): want error %s, got %s", name, args, code, r.Raw)
	}
	return r
}

// dig walks nested objects by keys.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// uniq makes a project name unique per run, so tests rerun on one stack.
func uniq(name string) string { return fmt.Sprintf("%s-%x", name, time.Now().UnixNano()) }

func str(v any) string { s, _ := v.(string); return s }

// uploadAs runs the upload an artifact.submit answered (its method, URL and
// headers) with body, the way the returned curl command would.
func uploadAs(t *testing.T, submitted map[string]any, body []byte) (int, map[string]any) {
	t.Helper()
	up, _ := submitted["upload"].(map[string]any)
	req, err := http.NewRequest(str(up["method"]), str(up["url"]), bytes.NewReader(body))
	if err != nil {
		t.Fatalf("upload instructions %v: %v", up, err)
	}
	for k, v := range up["headers"].(map[string]any) {
		req.Header.Set(k, str(v))
	}
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

// researchDB opens the stack's embedded SQLite database (a second
// connection; WAL and a busy timeout make that safe).
func researchDB(t *testing.T, s *Stack) *gorm.DB {
	t.Helper()
	db, err := models.Open("sqlite:" + filepath.Join(s.DataDir, "gatehouse.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	return db
}

// recordResearchHistory writes a workflow's history for the replay test
// when GATEHOUSE_RECORD_HISTORIES=1.
func recordResearchHistory(t *testing.T, s *Stack, workflowID, name string) {
	t.Helper()
	writeHistory(t, s, workflowID, "research/testdata/histories", name)
}
