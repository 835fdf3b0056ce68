package research

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// MountService registers /mcp/research, the REST mirror, the artifact
// upload URL and the operator console's research reads, served by s.
func MountService(r *rest.Router, d rest.Deps, s *Service, version string) {
	authn := rest.Require(d.DB, platform.RoleAgent, platform.RoleOperator)
	mcpH := MCPHandler(s, version)
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		r.Undocumented(m, "/mcp/research", "MCP Streamable HTTP endpoint (JSON-RPC), described by tools/list", authn, mcpH)
	}
	agentOrOp := []string{rest.RoleAgent, rest.RoleOperator}
	r.Handle(http.MethodGet, "/v1/research/tools", rest.Op{Summary: "The research tool catalogue (hidden tools flagged)", Tag: "research", Auth: agentOrOp,
		Responses: map[int]string{200: "the catalogue", 401: "no credential"}}, authn, s.listTools)
	r.Handle(http.MethodPost, "/v1/research/tools/:name", rest.Op{Summary: "Call a research tool with a JSON body", Tag: "research", Auth: agentOrOp,
		Request: map[string]any{"type": "object"}, Responses: map[int]string{200: "the tool's result", 400: "invalid input", 403: "forbidden",
			404: "not found", 409: "conflict or gate blocked", 410: "expired", 503: "unavailable (retryable)"}}, authn, s.callTool)
	r.Undocumented(http.MethodPut, UploadPathPrefix+":token", "raw artifact bytes, authorized by a single-use upload token", s.upload)
	s.mountStorage(r)
	op := rest.Require(d.DB, platform.RoleOperator)
	r.Handle(http.MethodGet, "/operator/v1/research/reviews", rest.Op{Summary: "Pending human review requests", Tag: "operator", Auth: []string{rest.RoleOperator},
		Responses: map[int]string{200: "review requests"}}, op, s.pendingHumanReviews)
	r.Handle(http.MethodGet, "/operator/v1/research/experiments", rest.Op{Summary: "Research experiments with their current gate", Tag: "operator", Auth: []string{rest.RoleOperator},
		Responses: map[int]string{200: "experiments"}}, op, s.operatorExperiments)
	r.Handle(http.MethodPost, "/operator/v1/research/reviews/:id/verdict", rest.Op{Summary: "Answer a human review request (the same operation as review.start + review.submit)",
		Tag: "operator", Auth: []string{rest.RoleOperator}, Request: map[string]any{"type": "object", "required": []string{"verdict", "synopsis"}},
		Responses: map[int]string{200: "verdict recorded", 400: "invalid input", 403: "forbidden", 404: "not found", 409: "conflict", 410: "expired"}}, op, s.answerHumanReviewHTTP)
}

func (s *Service) listTools(c *gin.Context) {
	out := make([]toolEntry, 0, len(s.Cat.Tools))
	for i := range s.Cat.Tools {
		t := &s.Cat.Tools[i]
		out = append(out, toolEntry{Name: s.Cat.ListedName(t), Description: t.Description, InputSchema: t.Schema,
			Hidden: t.Hidden, ReadOnly: t.ReadOnly})
	}
	pub, hid := s.Cat.Counts()
	c.JSON(http.StatusOK, toolList{Tools: out, Public: pub, Hidden: hid})
}

var statusOf = map[string]int{CodeInvalidInput: 400, CodeForbidden: 403, CodeNotFound: 404, CodeConflict: 409, CodeGateBlocked: 409,
	CodeExpired: 410, CodeUnavailable: 503}

func (s *Service) callTool(c *gin.Context) {
	body, ok := rest.ReadBody(c)
	if !ok {
		return
	}
	p, _ := rest.PrincipalOf(c)
	if len(body) > 0 && !json.Valid(body) {
		rest.Abort(c, http.StatusBadRequest, CodeInvalidInput, "body is not JSON")
		return
	}
	out, terr := s.Invoke(withRequestBase(c.Request.Context(), c.Request), p, c.Param("name"), body)
	if terr != nil {
		st := statusOf[terr.Code]
		if st == 0 {
			st = 400
		}
		c.AbortWithStatusJSON(st, errorBody{Error: terr})
		return
	}
	c.JSON(http.StatusOK, out)
}

// upload stores an artifact's bytes once per token, records their SHA-256
// and size, checks a gated role's content, and signals the experiment.
func (s *Service) upload(c *gin.Context) {
	ctx := c.Request.Context()
	a, err := models.ArtifactByUploadTokenHash(ctx, s.DB, platform.HashSecret(c.Param("token")))
	if errors.Is(err, models.ErrNoRecord) {
		rest.Abort(c, http.StatusNotFound, CodeNotFound, "unknown upload token")
		return
	}
	if err != nil {
		rest.Unavailable(c, "database unavailable; retry")
		return
	}
	if a.UploadedAt != nil {
		rest.Abort(c, http.StatusConflict, CodeConflict, "this upload token was already used")
		return
	}
	if s.now().After(a.UploadExpiresAt) {
		rest.Abort(c, http.StatusGone, CodeExpired, "the upload token expired; call artifact.submit again")
		return
	}
	kind, err := reviewTargetOf(a.TargetType)
	if err != nil {
		abortUpload(c, err, "unknown target type")
		return
	}
	typ, _ := kind.ref()
	max, gated := kind.artifactLimit(a.Role, s.Config.MaxBodyBytes)
	// Each upload attempt writes a key of its own; the row is bound to
	// it only if this attempt wins the compare-and-set below, so a
	// concurrent PUT with the same token cannot swap the bytes checked.
	key := artifactAttemptKey(a)
	info, err := s.Blobs.Put(ctx, key, c.Request.Body, max)
	if err != nil {
		rest.Abort(c, http.StatusRequestEntityTooLarge, CodeInvalidInput, "upload refused: "+err.Error())
		return
	}
	t, err := kind.load(ctx, s, a.TargetID)
	if err != nil {
		abortUpload(c, err, "the "+typ+"'s workflow is not reachable; retry")
		return
	}
	if why := t.closed(); why != "" {
		rest.Abort(c, http.StatusConflict, CodeGateBlocked, why)
		return
	}
	var problems []string
	if gated {
		text, rerr := s.readArtifact(ctx, models.Artifact{BlobKey: key, UploadedAt: &a.CreatedAt}, max)
		if rerr != nil {
			rest.Unavailable(c, "blob store unavailable; retry")
			return
		}
		problems = t.checkArtifact(ctx, s, a, []byte(text))
	}
	record := models.ArtifactLanding{BlobKey: key, SHA256: info.SHA256, Size: info.Size, Problems: problems, UploadedAt: time.Now().UTC()}
	landing := t.landed(a, wf.ArtifactRef{ArtifactID: a.ID, Role: a.Role, Path: a.Path, Attempt: a.Attempt, SHA256: info.SHA256,
		Size: info.Size, Valid: len(problems) == 0, Problems: problems, UploadedAt: record.UploadedAt})
	var landed *notice
	err = models.LandArtifact(ctx, s.DB, a.ID, record, func() error {
		var nerr error
		landed, nerr = t.notify(ctx, s, wf.ArtifactLandedSignal, a.ID, landing)
		return nerr
	})
	if errors.Is(err, models.ErrArtifactLanded) {
		err = &ToolError{Code: CodeConflict, Message: "this upload token was already used"}
	}
	if err != nil {
		_ = s.Blobs.Delete(context.WithoutCancel(ctx), key)
		abortUpload(c, err, "could not record the upload; retry with a new artifact.submit")
		return
	}
	landed.answer(ctx, nil)
	c.JSON(http.StatusOK, artifactLandedAnswer{ArtifactID: a.ID, Role: a.Role, LensID: t.lens(a), Path: a.Path, SHA256: info.SHA256,
		Size: info.Size, Valid: len(problems) == 0, Problems: problems})
}

func (s *Service) pendingHumanReviews(c *gin.Context) {
	// An expired request can no longer be answered: it is not pending.
	rs, err := models.PendingHumanReviews(c.Request.Context(), s.DB, s.now(), 500)
	if err != nil {
		rest.Unavailable(c, "database unavailable")
		return
	}
	c.JSON(http.StatusOK, reviewRequestsAnswer{Requests: reviewViews(rs)})
}

func (s *Service) operatorExperiments(c *gin.Context) {
	es, err := models.RecentExperiments(c.Request.Context(), s.DB, 500)
	if err != nil {
		rest.Unavailable(c, "database unavailable")
		return
	}
	out := make([]experimentSummaryResp, 0, len(es))
	for _, e := range es {
		v := experimentSummary(e)
		v.ProjectID, v.WorkflowID = e.ProjectID, wf.ExperimentWorkflowID(e.ID)
		out = append(out, v)
	}
	c.JSON(http.StatusOK, experimentsAnswer{Experiments: out, Authority: "current_gate mirrors each experiment's workflow"})
}

// toolList is GET /v1/research/tools: the catalogue, hidden tools flagged.
// Fields are in the order of their JSON keys, as the map it replaced
// encoded them.
type toolList struct {
	Hidden int         `json:"hidden"`
	Public int         `json:"public"`
	Tools  []toolEntry `json:"tools"`
}

// toolEntry is one tool of toolList.
type toolEntry struct {
	Description string         `json:"description"`
	Hidden      bool           `json:"hidden"`
	InputSchema map[string]any `json:"inputSchema"`
	Name        string         `json:"name"`
	ReadOnly    bool           `json:"read_only"`
}
