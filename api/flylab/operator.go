package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
	science "github.com/gatehouse/gatehouse/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

var (
	approveSchema = map[string]any{"type": "object", "additionalProperties": false, "required": []string{"protocol_hash"},
		"properties": map[string]any{"protocol_hash": map[string]any{"type": "string", "pattern": "^sha256:[a-f0-9]{64}$"}}}
	rejectSchema = map[string]any{"type": "object", "additionalProperties": false, "required": []string{"reason"},
		"properties": map[string]any{"reason": map[string]any{"type": "string", "minLength": 1, "maxLength": 1000}}}
	hashPattern = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)
)

// decisionWait bounds how long approve/reject wait for the session to
// show the decision, so the caller's next inspect sees it.
const decisionWait = 15 * time.Second

func decodeStrict(c *gin.Context, v any) bool {
	body, ok := rest.ReadBody(c)
	if !ok {
		return false
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "body does not match the schema: "+err.Error())
		return false
	}
	return true
}

// openExperiment loads an experiment still waiting at the gate.
func (s *Service) openExperiment(c *gin.Context) (models.Experiment, bool) {
	row, err := models.ExperimentByID(c.Request.Context(), s.deps.DB, c.Param("experiment_id"))
	if errors.Is(err, models.ErrNotFound) {
		rest.Abort(c, http.StatusNotFound, "not_found", "no experiment "+c.Param("experiment_id"))
		return row, false
	} else if err != nil {
		rest.Abort(c, http.StatusServiceUnavailable, "unavailable", "database unavailable; retry")
		return row, false
	}
	if row.Status != models.StatusAwaitingApproval {
		rest.Abort(c, http.StatusConflict, "already_decided", "experiment is "+row.Status, gin.H{"status": row.Status})
		return row, false
	}
	return row, true
}

func (s *Service) approve(c *gin.Context) {
	var body struct {
		ProtocolHash string `json:"protocol_hash"`
	}
	if !decodeStrict(c, &body) {
		return
	}
	if !hashPattern.MatchString(body.ProtocolHash) {
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "protocol_hash must be sha256: + 64 hex", gin.H{"pointer": "/protocol_hash"})
		return
	}
	row, ok := s.openExperiment(c)
	if !ok {
		return
	}
	if body.ProtocolHash != row.ProtocolHash {
		rest.Abort(c, http.StatusConflict, "protocol_hash_mismatch", "protocol_hash is not the experiment's current protocol hash",
			gin.H{"experiment_id": row.ID})
		return
	}
	p, _ := rest.PrincipalOf(c)
	s.signalAndWait(c, row, wf.ApproveSignal, wf.Approve{ProtocolHash: body.ProtocolHash, Operator: p.Name}, models.StatusApproved)
}

func (s *Service) reject(c *gin.Context) {
	var body struct {
		Reason string `json:"reason"`
	}
	if !decodeStrict(c, &body) {
		return
	}
	if r := strings.TrimSpace(body.Reason); r == "" || len(r) > 1000 {
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "reason must be 1 to 1000 characters", gin.H{"pointer": "/reason"})
		return
	}
	row, ok := s.openExperiment(c)
	if !ok {
		return
	}
	p, _ := rest.PrincipalOf(c)
	s.signalAndWait(c, row, wf.RejectSignal, wf.Reject{Reason: strings.TrimSpace(body.Reason), Operator: p.Name}, models.StatusRejected)
}

// signalAndWait signals the experiment workflow, then waits until the
// decision is recorded and mirrored by the session.
func (s *Service) signalAndWait(c *gin.Context, row models.Experiment, signal string, arg any, want string) {
	ctx := c.Request.Context()
	if err := s.deps.Temporal.SignalWorkflow(ctx, wf.ExperimentWorkflowID(row.ID), "", signal, arg); err != nil {
		rest.Abort(c, http.StatusConflict, "not_waiting", "the experiment workflow is not waiting for a decision", gin.H{"cause": err.Error()})
		return
	}
	deadline := time.Now().Add(decisionWait)
	for time.Now().Before(deadline) {
		cur, err := models.ExperimentByID(ctx, s.deps.DB, row.ID)
		st, qerr := s.state(ctx, row.SessionID)
		if err == nil && cur.Status == want && (qerr != nil || st.Experiment == nil || st.Experiment.ID != row.ID || st.Experiment.Status == want) {
			c.JSON(http.StatusOK, gin.H{"experiment": s.experimentView(ctx, cur), "session_state_revision": st.Revision})
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.JSON(http.StatusAccepted, gin.H{"experiment_id": row.ID, "status": "signalled"})
}

func (s *Service) listExperiments(c *gin.Context) {
	rows, err := models.ListExperiments(c.Request.Context(), s.deps.DB, c.Query("status"), 200)
	if err != nil {
		rest.Abort(c, http.StatusServiceUnavailable, "unavailable", "database unavailable; retry")
		return
	}
	out := make([]any, 0, len(rows))
	for _, r := range rows {
		out = append(out, s.experimentView(c.Request.Context(), r))
	}
	c.JSON(http.StatusOK, gin.H{"experiments": out})
}

func (s *Service) getExperiment(c *gin.Context) {
	row, err := models.ExperimentByID(c.Request.Context(), s.deps.DB, c.Param("experiment_id"))
	if err != nil {
		rest.Abort(c, http.StatusNotFound, "not_found", "no experiment "+c.Param("experiment_id"))
		return
	}
	c.JSON(http.StatusOK, s.experimentView(c.Request.Context(), row))
}

// experimentView is what an operator needs to decide: hypothesis, full
// protocol, effective drives, timing, seeds, assumptions and the hash.
func (s *Service) experimentView(ctx context.Context, r models.Experiment) gin.H {
	var d science.Design
	_ = json.Unmarshal([]byte(r.Design), &d)
	var hyp, approval any
	if h, err := models.Find[models.Hypothesis](ctx, s.deps.DB, r.SessionID, r.HypothesisID); err == nil {
		_ = json.Unmarshal([]byte(h.Body), &hyp)
	}
	if r.Approval != "" {
		_ = json.Unmarshal([]byte(r.Approval), &approval)
	}
	p := d.Experiment.Protocol
	return gin.H{"experiment_id": r.ID, "session_id": r.SessionID, "status": r.Status, "workflow_id": wf.ExperimentWorkflowID(r.ID),
		"hypothesis": hyp, "protocol": p, "effective_drives": p.DriveDerivations,
		"timing": gin.H{"onset_ms": p.OnsetMs, "duration_ms": p.DurationMs, "trial_duration_ms": p.TrialDurationMs},
		"seeds":  d.SeedManifest, "model_assumptions": p.Assumptions, "model": d.Experiment.Model,
		"protocol_hash": r.ProtocolHash, "seed_manifest_hash": r.SeedManifestHash, "approval": approval,
		"decided_by": r.DecidedBy, "reason": r.Reason, "created_at": r.CreatedAt, "updated_at": r.UpdatedAt}
}

func (s *Service) listSessions(c *gin.Context) {
	rows, err := models.ListSessions(c.Request.Context(), s.deps.DB, 100)
	if err != nil {
		rest.Abort(c, http.StatusServiceUnavailable, "unavailable", "database unavailable; retry")
		return
	}
	out := make([]any, 0, len(rows))
	for _, r := range rows {
		v := gin.H{"page_session_id": r.ID, "owner": r.OwnerName, "created_at": r.CreatedAt, "workflow_id": wf.SessionWorkflowID(r.ID)}
		if st, err := s.state(c.Request.Context(), r.ID); err == nil {
			v["state_revision"], v["stage"], v["agent_status"] = st.Revision, stage(st), agentStatus(st)
			v["next_action"], v["human_gate"] = nextAction(st), humanGate(st)
		}
		out = append(out, v)
	}
	c.JSON(http.StatusOK, gin.H{"sessions": out})
}
