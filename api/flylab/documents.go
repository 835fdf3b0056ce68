package flylab

import (
	"encoding/json"
	"html/template"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/contracts"
	models "github.com/gatehouse/gatehouse/models/flylab"
)

type documents struct {
	svc  *Service
	base string
}

func newDocuments(svc *Service, base string) *documents {
	return &documents{svc: svc, base: strings.TrimRight(base, "/")}
}

// exportSchemaURL is the one URL of the evidence-export schema: the API's
// public URL plus the path of the contract's evidence_export_schema_url.
// The served schema's $id, the manifest and every save_fly_evidence
// result carry exactly this value. (The worker has no public URL of its
// own; it never decides it.)
func (s *Service) exportSchemaURL() string {
	path, err := s.contract.Discovery.EvidenceExportSchemaPath()
	if err != nil {
		path = models.ExportSchemaPath
	}
	return strings.TrimRight(s.deps.Config.PublicURL, "/") + path
}

func (d *documents) manifest(c *gin.Context) {
	tools := make([]any, 0, len(d.svc.tools))
	for _, t := range d.svc.tools {
		tools = append(tools, gin.H{"name": t.Name, "title": t.Title, "annotations": t.Annotations})
	}
	c.JSON(http.StatusOK, gin.H{
		"schema_version": "flylab.agent-manifest.v3", "name": "Gatehouse FlyLab",
		"contract_version": d.svc.contract.SchemaVersion, "required_first_call": "inspect_flylab_state",
		"transports": gin.H{"mcp": d.base + "/mcp/flylab", "rest_tools": d.base + "/v1/flylab/tools",
			"authentication": "Authorization: Bearer <agent API key>"},
		"documentation_url": d.base + "/agent", "contract_url": d.base + "/flylab-tool-contracts.json",
		"evidence_export_schema_url": d.svc.exportSchemaURL(), "evidence_export_media_type": models.ExportMediaType,
		"operator_gate": gin.H{"tool": false, "endpoint": "POST /operator/v1/flylab/experiments/{experiment_id}/approve",
			"authentication": "operator token only; agent keys get 403"},
		"tools": tools,
	})
}

func (d *documents) contract(c *gin.Context) {
	c.Data(http.StatusOK, "application/json", contracts.FlyLabContractFile)
}

// schema serves the export schema with its $id set to exportSchemaURL,
// so a validator resolves the document by the URL results hand out.
func (d *documents) schema(c *gin.Context) {
	var doc map[string]any
	if err := json.Unmarshal(models.ExportSchema, &doc); err != nil {
		c.Data(http.StatusInternalServerError, "text/plain", []byte("embedded export schema is invalid"))
		return
	}
	doc["$id"] = d.svc.exportSchemaURL()
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		c.Data(http.StatusInternalServerError, "text/plain", []byte("export schema cannot be encoded"))
		return
	}
	c.Data(http.StatusOK, "application/schema+json", body)
}

var agentPage = template.Must(template.New("agent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Gatehouse FlyLab — agent guide</title></head>
<body><main>
<h1>Gatehouse FlyLab tools</h1>
<p>Eight tools from <code>{{.Version}}</code>, served over MCP at <code>{{.Base}}/mcp/flylab</code> and as JSON at
<code>POST {{.Base}}/v1/flylab/tools/&lt;name&gt;</code>. Authenticate with <code>Authorization: Bearer &lt;agent key&gt;</code>.
Every answer is a <code>flylab.tool-result.v3</code> envelope.</p>
<h2>Pipeline</h2>
<ol>
<li><code>inspect_flylab_state</code> — always first, and after any failure or interruption. <code>{"new_page_session": true, "operation_id": "…"}</code> opens a fresh page session (a new mission; a retry with the same operation_id answers the same session); <code>{"page_session_id": "…"}</code> resumes an earlier one of the same key. Call exactly what <code>next_action</code> names, adding the fields in its <code>agent_supplies</code>.</li>
<li><code>find_fly_circuits</code> → <code>draft_fly_hypothesis</code> → <code>design_stimulation_trial</code></li>
<li><b>Operator approval</b> — not a tool. An operator calls <code>POST /operator/v1/flylab/experiments/{id}/approve</code> with the exact <code>protocol_hash</code>.</li>
<li><code>run_fly_simulation</code> (echo <code>approved_protocol_hash</code>; one run per approval) → <code>analyze_fly_behavior</code> → <code>compare_fly_trials</code> → <code>save_fly_evidence</code></li>
</ol>
<p>Send <code>expected_state_revision</code> from the latest inspect or success; a stale one is <code>STALE_STATE</code>.
Retry <code>run_fly_simulation</code> and <code>save_fly_evidence</code> with the same <code>operation_id</code> to replay the stored result.</p>
<h2>Tools</h2>
<dl>{{range .Tools}}<dt><code>{{.Name}}</code> — {{.Title}}</dt><dd>{{.Description}}</dd>{{end}}</dl>
<p>Evidence exports validate against <a href="{{.SchemaURL}}">the published schema</a>.</p>
</main></body></html>`))

func (d *documents) agentPage(c *gin.Context) {
	c.Header("Content-Type", "text/html; charset=utf-8")
	c.Status(http.StatusOK)
	_ = agentPage.Execute(c.Writer, gin.H{"Version": d.svc.contract.SchemaVersion, "Base": d.base,
		"Tools": d.svc.tools, "SchemaURL": d.svc.exportSchemaURL()})
}
