package flylab

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/platform"
)

// MountService registers every FlyLab route served by svc: the tools (MCP
// and JSON), the published documents, the evidence download and the
// operator endpoints.
func MountService(r *rest.Router, d rest.Deps, svc *Service) {
	agent := rest.Require(d.DB, platform.RoleAgent)
	operator := rest.Require(d.DB, platform.RoleOperator)
	either := rest.Require(d.DB, platform.RoleAgent, platform.RoleOperator)
	agentAuth := []string{rest.RoleAgent}
	opAuth := []string{rest.RoleOperator}

	r.Handle(http.MethodGet, "/v1/flylab/tools", rest.Op{Summary: "List the 8 FlyLab tools with their input schemas",
		Tag: "flylab", Auth: agentAuth, Responses: map[int]string{200: "tool list"}}, agent, svc.listTools)
	r.Handle(http.MethodPost, "/v1/flylab/tools/:name", rest.Op{Summary: "Call a FlyLab tool; the body is its arguments, the answer a flylab.tool-result.v3 envelope",
		Tag: "flylab", Auth: agentAuth, Request: map[string]any{"type": "object"},
		Responses: map[int]string{200: "result envelope (ok true or false)", 404: "unknown tool"}}, agent, svc.callTool)
	r.Handle(http.MethodGet, "/v1/flylab/evidence/:bundle_id", rest.Op{Summary: "Download a saved evidence export",
		Tag: "flylab", Auth: []string{rest.RoleAgent, rest.RoleOperator},
		Responses: map[int]string{200: "the export (application/vnd.flylab.evidence+json)", 404: "unknown bundle"}}, either, svc.downloadEvidence)

	r.Handle(http.MethodGet, "/operator/v1/flylab/experiments", rest.Op{Summary: "List FlyLab experiments (filter with ?status=awaiting_approval)",
		Tag: "operator", Auth: opAuth, Responses: map[int]string{200: "experiments with protocol, drives, timing, seeds, assumptions and protocol_hash"}},
		operator, svc.listExperiments)
	r.Handle(http.MethodGet, "/operator/v1/flylab/experiments/:experiment_id", rest.Op{Summary: "One FlyLab experiment with its design and approval record",
		Tag: "operator", Auth: opAuth, Responses: map[int]string{200: "experiment", 404: "unknown experiment"}}, operator, svc.getExperiment)
	r.Handle(http.MethodPost, "/operator/v1/flylab/experiments/:experiment_id/approve", rest.Op{Summary: "Approve the exact protocol hash of an experiment (signals its workflow)",
		Tag: "operator", Auth: opAuth, Request: approveSchema,
		Responses: map[int]string{200: "approved", 404: "unknown experiment", 409: "hash mismatch or already decided", 422: "invalid body"}},
		operator, svc.approve)
	r.Handle(http.MethodPost, "/operator/v1/flylab/experiments/:experiment_id/reject", rest.Op{Summary: "Reject an experiment with a reason (signals its workflow)",
		Tag: "operator", Auth: opAuth, Request: rejectSchema,
		Responses: map[int]string{200: "rejected", 404: "unknown experiment", 409: "already decided", 422: "invalid body"}},
		operator, svc.reject)
	r.Handle(http.MethodGet, "/operator/v1/flylab/sessions", rest.Op{Summary: "List FlyLab page sessions with their live state",
		Tag: "operator", Auth: opAuth, Responses: map[int]string{200: "sessions"}}, operator, svc.listSessions)

	mcpHandler := svc.mcpHandler()
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		r.Undocumented(m, "/mcp/flylab", "MCP Streamable HTTP endpoint (JSON-RPC), described by tools/list", gin.WrapH(mcpHandler))
	}
	docs := newDocuments(svc, d.Config.PublicURL)
	r.Undocumented(http.MethodGet, "/flylab-agent-manifest.json", "published FlyLab document", docs.manifest)
	r.Undocumented(http.MethodGet, "/flylab-tool-contracts.json", "published FlyLab document", docs.contract)
	r.Undocumented(http.MethodGet, models.ExportSchemaPath, "published FlyLab document", docs.schema)
	r.Undocumented(http.MethodGet, "/agent", "published FlyLab document (HTML)", docs.agentPage)
}

func (s *Service) listTools(c *gin.Context) {
	out := make([]any, 0, len(s.tools))
	for _, t := range s.tools {
		out = append(out, gin.H{"name": t.Name, "title": t.Title, "description": t.Description,
			"annotations": t.Annotations, "input_schema": t.InputSchema})
	}
	c.JSON(http.StatusOK, gin.H{"tools": out})
}

func (s *Service) callTool(c *gin.Context) {
	body, ok := rest.ReadBody(c)
	if !ok {
		return
	}
	p, _ := rest.PrincipalOf(c)
	env, found := s.Call(c.Request.Context(), p, c.Param("name"), body, nil)
	if !found {
		rest.Abort(c, http.StatusNotFound, "not_found", "no FlyLab tool named "+c.Param("name"))
		return
	}
	c.JSON(http.StatusOK, env)
}

func (s *Service) downloadEvidence(c *gin.Context) {
	b, err := models.BundleByID(c.Request.Context(), s.deps.DB, c.Param("bundle_id"))
	p, _ := rest.PrincipalOf(c)
	if err == nil && p.Role != platform.RoleOperator {
		if _, oerr := s.ownedSession(c.Request.Context(), p, b.SessionID); oerr != nil {
			err = models.ErrNotFound
		}
	}
	if errors.Is(err, models.ErrNotFound) {
		rest.Abort(c, http.StatusNotFound, "not_found", "no evidence bundle "+c.Param("bundle_id"))
		return
	} else if err != nil {
		rest.Unavailable(c, "evidence ledger unavailable; retry")
		return
	}
	c.Header("Content-Disposition", `attachment; filename="`+b.ID+`.flylab-evidence.json"`)
	c.Data(http.StatusOK, models.ExportMediaType, []byte(b.Export))
}
