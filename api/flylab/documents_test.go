package flylab

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/contracts"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// publishedDocuments serves FlyLab's routes behind publicURL and returns a
// GET helper over them.
func publishedDocuments(t *testing.T, publicURL string) (func(path string) *httptest.ResponseRecorder, *Service) {
	t.Helper()
	gin.SetMode(gin.TestMode)
	deps := rest.Deps{DB: modelstest.SQLite(t), Config: config.Config{PublicURL: publicURL}}
	svc, err := NewService(deps)
	if err != nil {
		t.Fatal(err)
	}
	engine := gin.New()
	MountService(rest.NewRouter(engine, rest.NewDocument("t", "t")), deps, svc)
	return func(path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		engine.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w
	}, svc
}

func contractDiscovery(t *testing.T) contracts.FlyLabDiscovery {
	t.Helper()
	c, err := contracts.ParseFlyLab()
	if err != nil {
		t.Fatal(err)
	}
	return c.Discovery
}

func TestPublishedDocuments_OneExportSchemaURLFromTheAPIsPublicURL(t *testing.T) {
	// The API's public URL, as compose or a load balancer sets it; the
	// worker's address (127.0.0.1:8080 in compose) must appear nowhere.
	get, svc := publishedDocuments(t, "https://flylab.example.test/")
	d := contractDiscovery(t)
	contractURL, _ := url.Parse(d.EvidenceExportSchemaURL)
	want := "https://flylab.example.test" + contractURL.Path
	if got := svc.exportSchemaURL(); got != want {
		t.Fatalf("export schema URL %q, want %q", got, want)
	}

	schema := get(contractURL.Path)
	if schema.Code != http.StatusOK || !strings.HasPrefix(schema.Header().Get("Content-Type"), "application/schema+json") {
		t.Fatalf("schema route %d %q", schema.Code, schema.Header().Get("Content-Type"))
	}
	var doc map[string]any
	if err := json.Unmarshal(schema.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["$id"] != want {
		t.Errorf("served schema $id %v, want %s", doc["$id"], want)
	}
	if _, err := contracts.CompileJSON(want, schema.Body.Bytes()); err != nil {
		t.Errorf("served schema does not compile: %v", err)
	}

	var manifest map[string]any
	if err := json.Unmarshal(get(d.ManifestURL).Body.Bytes(), &manifest); err != nil {
		t.Fatal(err)
	}
	if manifest["evidence_export_schema_url"] != want || manifest["evidence_export_media_type"] != d.EvidenceExportMediaType {
		t.Errorf("manifest names %v / %v", manifest["evidence_export_schema_url"], manifest["evidence_export_media_type"])
	}
	if page := get(d.BrowserDocumentationURL).Body.String(); !strings.Contains(page, `href="`+want+`"`) {
		t.Error("/agent does not link the export schema URL")
	}

	m := mdnMission(t, modelstest.SQLite(t))
	save := asAgent(t, m.envelopes["save_fly_evidence"])["data"].(map[string]any)
	if save["export_schema_url"] != testPublicURL+contractURL.Path {
		t.Errorf("save_fly_evidence export_schema_url %v", save["export_schema_url"])
	}
}

func TestPublishedDocuments_ManifestDescribesTheServedSurface(t *testing.T) {
	base := "https://flylab.example.test"
	get, svc := publishedDocuments(t, base)
	w := get(contractDiscovery(t).ManifestURL)
	if w.Code != http.StatusOK {
		t.Fatalf("manifest %d", w.Code)
	}
	var m struct {
		SchemaVersion     string `json:"schema_version"`
		ContractVersion   string `json:"contract_version"`
		RequiredFirstCall string `json:"required_first_call"`
		Transports        struct {
			MCP       string `json:"mcp"`
			RESTTools string `json:"rest_tools"`
		} `json:"transports"`
		DocumentationURL string `json:"documentation_url"`
		ContractURL      string `json:"contract_url"`
		OperatorGate     struct {
			Tool bool `json:"tool"`
		} `json:"operator_gate"`
		Tools []struct {
			Name        string         `json:"name"`
			Title       string         `json:"title"`
			Annotations map[string]any `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m.SchemaVersion != "flylab.agent-manifest.v3" || m.ContractVersion != svc.contract.SchemaVersion ||
		m.RequiredFirstCall != "inspect_flylab_state" || m.OperatorGate.Tool {
		t.Errorf("manifest header %+v", m)
	}
	if m.Transports.MCP != base+"/mcp/flylab" || m.Transports.RESTTools != base+"/v1/flylab/tools" {
		t.Errorf("transports %+v", m.Transports)
	}
	for _, link := range []string{m.DocumentationURL, m.ContractURL} {
		if !strings.HasPrefix(link, base+"/") || get(strings.TrimPrefix(link, base)).Code != http.StatusOK {
			t.Errorf("document link %q is not served under %s", link, base)
		}
	}
	if len(m.Tools) != len(svc.contract.Tools) {
		t.Fatalf("manifest lists %d tools, the contract %d", len(m.Tools), len(svc.contract.Tools))
	}
	for i, tool := range svc.contract.Tools {
		got := m.Tools[i]
		if got.Name != tool.Name || got.Title != tool.Title || got.Annotations["readOnlyHint"] != tool.Annotations["readOnlyHint"] {
			t.Errorf("tool %d: manifest %+v, contract %s %q", i, got, tool.Name, tool.Title)
		}
	}
}

func TestPublishedDocuments_ContractRouteServesTheContractByteForByte(t *testing.T) {
	get, _ := publishedDocuments(t, "http://127.0.0.1:8080")
	w := get(contractDiscovery(t).ContractURL)
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("contract route %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	if !bytes.Equal(w.Body.Bytes(), contracts.FlyLabContractFile) {
		t.Fatal("the served contract differs from the embedded contract")
	}
	var parsed contracts.FlyLabContract
	if err := json.Unmarshal(w.Body.Bytes(), &parsed); err != nil || parsed.SchemaVersion != "flylab.webmcp-contracts.v3" || len(parsed.Tools) != 8 {
		t.Fatalf("served contract %v %q %d tools", err, parsed.SchemaVersion, len(parsed.Tools))
	}
}

func TestPublishedDocuments_AgentPageNamesEveryToolAndTheGate(t *testing.T) {
	base := "https://flylab.example.test"
	get, svc := publishedDocuments(t, base)
	w := get(contractDiscovery(t).BrowserDocumentationURL)
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("/agent %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	page := w.Body.String()
	for _, tool := range svc.contract.Tools {
		if !strings.Contains(page, "<code>"+tool.Name+"</code> — "+tool.Title) {
			t.Errorf("/agent does not list %s (%s)", tool.Name, tool.Title)
		}
	}
	for _, want := range []string{base + "/mcp/flylab", "POST " + base + "/v1/flylab/tools/", svc.contract.SchemaVersion,
		"/operator/v1/flylab/experiments/{id}/approve", "expected_state_revision", "operation_id", "flylab.tool-result.v3"} {
		if !strings.Contains(page, want) {
			t.Errorf("/agent lacks %q", want)
		}
	}
}
