package api

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"context"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/telemetry"
	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
)

func newTestServer(t *testing.T) (*Server, *testCreds) {
	t.Helper()
	cfg, err := config.FromLookup(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxBodyBytes = 1 << 10
	tel, err := telemetry.New(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	db := modelstest.SQLite(t)
	srv, err := New(Deps{Config: cfg, DB: db, Telemetry: tel, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	agent, err := platform.Mint(ctx, db, platform.MintRequest{Role: platform.RoleAgent, Name: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	op, err := platform.Mint(ctx, db, platform.MintRequest{Role: platform.RoleOperator, Name: "op"})
	if err != nil {
		t.Fatal(err)
	}
	return srv, &testCreds{agent: agent.Plaintext, operator: op.Plaintext}
}

type testCreds struct{ agent, operator string }

func do(t *testing.T, h http.Handler, method, path, token, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestOpenAPI_DocumentsExactlyTheRegisteredRoutes(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	registered := map[string]bool{}
	for _, r := range srv.Engine.Routes() {
		registered[r.Method+" "+r.Path] = true
		if !srv.Document.Documented(r.Method, r.Path) && !srv.Document.Exempt(r.Method, r.Path) {
			t.Errorf("route %s %s is registered but not in the OpenAPI document", r.Method, r.Path)
		}
	}
	rec := do(t, srv.Engine, http.MethodGet, "/openapi.json", "", "")
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || len(doc.Paths) == 0 {
		t.Fatalf("not an OpenAPI 3.1 document: %s", rec.Body.String()[:min(200, rec.Body.Len())])
	}
	for path, methods := range doc.Paths {
		ginPath := ginStyle(path)
		for m := range methods {
			if !registered[strings.ToUpper(m)+" "+ginPath] {
				t.Errorf("documented %s %s is not registered", strings.ToUpper(m), path)
			}
		}
	}
}

func ginStyle(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			parts[i] = ":" + s[1:len(s)-1]
		}
	}
	return strings.Join(parts, "/")
}

func TestAuth_MissingWrongAndWrongRole(t *testing.T) {
	t.Parallel()
	srv, creds := newTestServer(t)
	body := `{"role":"agent","name":"n"}`
	cases := []struct {
		name, token string
		want        int
	}{
		{"no credential", "", http.StatusUnauthorized},
		{"wrong credential", "op_" + strings.Repeat("0", 64), http.StatusUnauthorized},
		{"garbage", "hello", http.StatusUnauthorized},
		{"agent on operator endpoint", creds.agent, http.StatusForbidden},
		{"operator", creds.operator, http.StatusCreated},
	}
	for _, tc := range cases {
		rec := do(t, srv.Engine, http.MethodPost, "/operator/v1/keys", tc.token, body)
		if rec.Code != tc.want {
			t.Errorf("%s: want %d, got %d %s", tc.name, tc.want, rec.Code, rec.Body)
		}
		if tc.want >= 400 {
			var e struct {
				Error struct{ Code, Message string }
			}
			if json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Error.Code == "" {
				t.Errorf("%s: want a JSON error body, got %s", tc.name, rec.Body)
			}
		}
	}
}

func TestKeys_MintedPlaintextWorksOnceShownNeverListed(t *testing.T) {
	t.Parallel()
	srv, creds := newTestServer(t)
	rec := do(t, srv.Engine, http.MethodPost, "/operator/v1/keys", creds.operator, `{"role":"operator","name":"second"}`)
	var minted struct{ ID, Plaintext string }
	if err := json.Unmarshal(rec.Body.Bytes(), &minted); err != nil || !strings.HasPrefix(minted.Plaintext, "op_") {
		t.Fatalf("mint: %d %s", rec.Code, rec.Body)
	}
	list := do(t, srv.Engine, http.MethodGet, "/operator/v1/keys", minted.Plaintext, "")
	if list.Code != http.StatusOK || strings.Contains(list.Body.String(), minted.Plaintext) {
		t.Fatalf("list must work with the new token and never show plaintext: %d", list.Code)
	}
	if rec := do(t, srv.Engine, http.MethodDelete, "/operator/v1/keys/"+minted.ID, creds.operator, ""); rec.Code != http.StatusOK {
		t.Fatalf("revoke: %d %s", rec.Code, rec.Body)
	}
	if rec := do(t, srv.Engine, http.MethodGet, "/operator/v1/keys", minted.Plaintext, ""); rec.Code != http.StatusUnauthorized {
		t.Fatalf("revoked token must answer 401, got %d", rec.Code)
	}
}

func TestKeys_BadInputChangesNothing(t *testing.T) {
	t.Parallel()
	srv, creds := newTestServer(t)
	for _, body := range []string{`{`, `{"role":"admin","name":"x"}`, `{"role":"agent"}`, `{"role":"agent","name":"x","projects":["../etc"]}`} {
		rec := do(t, srv.Engine, http.MethodPost, "/operator/v1/keys", creds.operator, body)
		if rec.Code != http.StatusBadRequest && rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("%s: want 400/422, got %d", body, rec.Code)
		}
	}
	list := do(t, srv.Engine, http.MethodGet, "/operator/v1/keys", creds.operator, "")
	var out struct{ Keys []any }
	_ = json.Unmarshal(list.Body.Bytes(), &out)
	if len(out.Keys) != 2 {
		t.Fatalf("bad input must store nothing; have %d keys", len(out.Keys))
	}
}

func TestLimits_OversizedBodyIs413BeforeParsing(t *testing.T) {
	t.Parallel()
	srv, creds := newTestServer(t)
	big := `{"role":"agent","name":"` + strings.Repeat("x", 2<<10) + `"}`
	rec := do(t, srv.Engine, http.MethodPost, "/operator/v1/keys", creds.operator, big)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("want 413, got %d", rec.Code)
	}
}

func TestHealthz_AndUnknownRoutesAnswerJSON(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	if rec := do(t, srv.Engine, http.MethodGet, "/healthz", "", ""); rec.Code != http.StatusOK {
		t.Fatalf("healthz %d", rec.Code)
	}
	rec := do(t, srv.Engine, http.MethodGet, "/nope", "", "")
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), `"not_found"`) {
		t.Fatalf("unknown route: %d %s", rec.Code, rec.Body)
	}
	m := do(t, srv.Engine, http.MethodGet, "/metrics", "", "")
	if !strings.Contains(m.Body.String(), `gatehouse_http_requests_total{method="GET",route="/healthz",status="200"} 1`) {
		t.Fatalf("metrics must count requests by route template:\n%s", m.Body.String()[:min(400, m.Body.Len())])
	}
}
