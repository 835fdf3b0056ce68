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

func (s *Service) approve(c *gin.Context) {
	var body struct {
		ProtocolHash string `json:"protocol_hash"`
	}
	if !decodeStrict(c, &body) {
		return
	}
	p, _ := rest.PrincipalOf(c)
	d, err := s.Approve(c.Request.Context(), p.Name, c.Param("experiment_id"), body.ProtocolHash)
	s.answerDecision(c, d, err)
}

func (s *Service) reject(c *gin.Context) {
	var body struct {
		Reason string `json:"reason"`
	}
	if !decodeStrict(c, &body) {
		return
	}
	p, _ := rest.PrincipalOf(c)
	d, err := s.Reject(c.Request.Context(), p.Name, c.Param("experiment_id"), "", body.Reason)
	s.answerDecision(c, d, err)
}

// answerDecision renders the outcome of Approve or Reject.
func (s *Service) answerDecision(c *gin.Context, d Decision, err error) {
	var derr *DecisionError
	switch {
	case errors.As(err, &derr):
		if derr.Details != nil {
			rest.Abort(c, derr.Status, derr.Code, derr.Message, derr.Details)
		} else {
			rest.Abort(c, derr.Status, derr.Code, derr.Message)
		}
	case err != nil:
		rest.Unavailable(c, "database or Temporal unavailable; retry")
	case !d.Mirrored:
		c.JSON(http.StatusAccepted, gin.H{"experiment_id": d.Experiment.ID, "status": "signalled"})
	default:
		c.JSON(http.StatusOK, gin.H{"experiment": s.experimentView(c.Request.Context(), d.Experiment), "session_state_revision": d.SessionRevision})
	}
}

func (s *Service) listExperiments(c *gin.Context) {
	rows, err := models.ListExperiments(c.Request.Context(), s.deps.DB, c.Query("status"), 200)
	if err != nil {
		rest.Unavailable(c, "database unavailable; retry")
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
	v := s.experimentView(c.Request.Context(), row)
	refused, err := models.RefusalsOf(c.Request.Context(), s.deps.DB, row.ID)
	if err != nil {
		rest.Unavailable(c, "database unavailable; retry")
		return
	}
	list := make([]gin.H, 0, len(refused))
	for _, r := range refused {
		list = append(list, gin.H{"signal": r.Signal, "decision_id": r.DecisionID, "claimed_operator": r.ClaimedOperator,
			"why": r.Why, "at": r.CreatedAt})
	}
	// Gate signals the workflow refused because no authenticated operator
	// decision backed them (forged or replayed signals).
	v["refused_gate_signals"] = list
	c.JSON(http.StatusOK, v)
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

// listReadTimeout bounds the state reads of a session list, so a Temporal
// outage slows the list by this much, not by every session's retry budget.
const listReadTimeout = 5 * time.Second

func (s *Service) listSessions(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), listReadTimeout)
	defer cancel()
	rows, err := models.ListSessions(ctx, s.deps.DB, 100)
	if err != nil {
		rest.Unavailable(c, "database unavailable; retry")
		return
	}
	out := make([]any, 0, len(rows))
	for _, r := range rows {
		v := gin.H{"page_session_id": r.ID, "owner": r.OwnerName, "created_at": r.CreatedAt, "workflow_id": wf.SessionWorkflowID(r.ID)}
		if st, err := s.state(ctx, r.ID); err == nil {
			v["state_revision"], v["stage"], v["agent_status"] = st.Revision, stage(st), agentStatus(st)
			v["next_action"], v["human_gate"] = nextAction(st), humanGate(st)
		}
		out = append(out, v)
	}
	c.JSON(http.StatusOK, gin.H{"sessions": out})
}
