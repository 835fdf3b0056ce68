package flywheel

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
	models "github.com/gatehouse/gatehouse/models/flywheel"
)

type exclusionView struct {
	Reason string  `json:"reason"`
	Detail *string `json:"detail"`
}

type outputView struct {
	FinalText             string          `json:"final_text"`
	ToolCalls             json.RawMessage `json:"tool_calls"`
	ToolCallLanded        json.RawMessage `json:"tool_call_landed"`
	ToolCallsOmittedCount int64           `json:"tool_calls_omitted_count"`
	Artifacts             json.RawMessage `json:"artifacts"`
	Reward                *float64        `json:"reward"`
	RewardAdvisory        bool            `json:"reward_advisory_only"`
	Success               *bool           `json:"success"`
	Exclusion             *exclusionView  `json:"exclusion"`
	Events                json.RawMessage `json:"events"`
	Timing                json.RawMessage `json:"timing"`
	AgentFingerprint      json.RawMessage `json:"agent_fingerprint_attested"`
	ReceivedAt            time.Time       `json:"received_at"`
	Epoch                 int64           `json:"lease_epoch"`
}

type callView struct {
	ID            string    `json:"id"`
	Endpoint      string    `json:"endpoint"`
	Completion    bool      `json:"completion"`
	Model         string    `json:"model"`
	RequestSHA256 string    `json:"request_sha256"`
	Stream        bool      `json:"stream"`
	Status        int       `json:"status"`
	StartedAt     time.Time `json:"started_at"`
	// The server-derived scaffold identity and the tool_call_id join.
	PromptSHA256       string          `json:"rendered_prompt_sha256"`
	ToolsSHA256        string          `json:"tool_schema_sha256"`
	Sampling           json.RawMessage `json:"sampling_params"`
	ToolResultIDs      json.RawMessage `json:"tool_result_ids"`
	EmittedToolCallIDs json.RawMessage `json:"emitted_tool_call_ids"`
}

type rolloutView struct {
	RolloutID            string          `json:"rollout_id"`
	WorkflowID           string          `json:"workflow_id"`
	Owner                string          `json:"owner"`
	Status               string          `json:"status"`
	TurnInput            string          `json:"turn_input"`
	TaskID               *string         `json:"task_id"`
	Metadata             json.RawMessage `json:"metadata"`
	Source               *gin.H          `json:"source_turn,omitempty"`
	DeadlineAt           time.Time       `json:"deadline_at"`
	Attempts             int64           `json:"attempts"`
	MaxAttempts          int             `json:"max_attempts"`
	LeaseExpiresAt       *time.Time      `json:"lease_expires_at"`
	LeaseHistory         []LeaseView     `json:"lease_history,omitempty"`
	ToolCalls            json.RawMessage `json:"tool_calls"`
	LLMCallsObserved     int64           `json:"llm_calls_observed"`
	LLMCallCountReported *int64          `json:"llm_call_count_reported"`
	OnPolicy             *bool           `json:"on_policy"`
	Exclusion            *exclusionView  `json:"exclusion"`
	Output               *outputView     `json:"output,omitempty"`
	GatewayCalls         []callView      `json:"gateway_calls_derived,omitempty"`
	CreatedAt            time.Time       `json:"created_at"`
	FinishedAt           *time.Time      `json:"finished_at"`
	// ToolCallEmittedBy joins each reported tool_call_id to the gateway
	// call that emitted it.
	ToolCallEmittedBy map[string]string `json:"tool_call_emitted_by,omitempty"`
}

// view renders a rollout. on_policy is true only when the agent reported a
// completion count, it equals the gateway's own count, and no tool call was
// omitted; null until an output exists.
func view(r models.Rollout, o *models.Output) rolloutView {
	v := rolloutView{
		RolloutID: r.ID, WorkflowID: "rollout/" + r.ID, Owner: r.Owner, Status: r.Status, TurnInput: r.TurnInput, TaskID: r.TaskID,
		Metadata: rawOrNull(r.Metadata), DeadlineAt: r.DeadlineAt, Attempts: r.Attempts(), MaxAttempts: r.MaxAttempts,
		LeaseExpiresAt: r.LeaseExpiresAt, ToolCalls: json.RawMessage("null"), LLMCallsObserved: r.LLMCallsObserved,
		CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt,
	}
	if r.SourceAgent != nil && r.SourceTurn != nil {
		v.Source = &gin.H{"agent_id": *r.SourceAgent, "turn_id": *r.SourceTurn}
	}
	if r.ExclusionReason != nil {
		v.Exclusion = &exclusionView{Reason: *r.ExclusionReason, Detail: r.ExclusionDetail}
	}
	if o != nil {
		v.ToolCalls, v.LLMCallCountReported = rawOrNull(o.ToolCalls), o.LLMCallCount
		on := o.LLMCallCount != nil && *o.LLMCallCount == r.LLMCallsObserved && o.ToolCallsOmittedCount == 0
		v.OnPolicy = &on
		ov := outputView{
			FinalText: o.FinalText, ToolCalls: rawOrNull(o.ToolCalls), ToolCallLanded: rawOrNull(o.ToolCallLanded), ToolCallsOmittedCount: o.ToolCallsOmittedCount,
			Artifacts: rawOrNull(o.Artifacts), Reward: o.Reward, RewardAdvisory: true, Success: o.Success,
			Events: rawOrNull(o.Events), Timing: rawOrNull(o.Timing), AgentFingerprint: rawOrNull(o.AgentFingerprint),
			ReceivedAt: o.ReceivedAt, Epoch: o.Epoch,
		}
		if o.ExclusionReason != nil {
			ov.Exclusion = &exclusionView{Reason: *o.ExclusionReason, Detail: o.ExclusionDetail}
		}
		v.Output = &ov
	}
	return v
}

// GetRollout handles GET /operator/v1/rollouts/:id.
func (h *Handler) GetRollout(c *gin.Context) {
	ctx := c.Request.Context()
	r, err := models.GetRollout(ctx, h.db, c.Param("id"))
	if errors.Is(err, models.ErrNotFound) {
		rest.Abort(c, http.StatusNotFound, "not_found", "no such rollout")
		return
	}
	if err != nil {
		rest.Unavailable(c, "database unavailable")
		return
	}
	var op *models.Output
	if o, err := models.GetOutput(ctx, h.db, r.ID); err == nil {
		op = &o
	}
	v := view(r, op)
	leases, err := models.CurrentLeaseHistory(ctx, h.db, r)
	if err != nil {
		rest.Unavailable(c, "database unavailable")
		return
	}
	if len(leases) > 0 {
		v.LeaseHistory = leaseViews(leases)
	}
	calls, _ := models.Calls(ctx, h.db, r.ID)
	for _, cl := range calls {
		v.GatewayCalls = append(v.GatewayCalls, callView{ID: cl.ID, Endpoint: cl.Endpoint, Completion: cl.Completion, Model: cl.Model,
			RequestSHA256: cl.RequestSHA256, Stream: cl.Stream, Status: cl.Status, StartedAt: cl.StartedAt,
			PromptSHA256: cl.PromptSHA256, ToolsSHA256: cl.ToolsSHA256, Sampling: rawOrNull(cl.Sampling),
			ToolResultIDs: rawOrNull(cl.ToolResultIDs), EmittedToolCallIDs: rawOrNull(cl.EmittedToolCallIDs)})
	}
	if op != nil {
		v.ToolCallEmittedBy = attributeToolCalls(op.ToolCalls, calls)
	}
	c.JSON(http.StatusOK, v)
}

// ListRollouts handles GET /operator/v1/rollouts?status=&limit=.
func (h *Handler) ListRollouts(c *gin.Context) {
	limit := 100
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1000 {
			rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "limit must be 1-1000")
			return
		}
		limit = n
	}
	status := c.Query("status")
	switch status {
	case "", models.StatusQueued, models.StatusLeased, models.StatusCompleted, models.StatusExcluded:
	default:
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "status must be queued, leased, completed or excluded")
		return
	}
	rs, err := models.ListRollouts(c.Request.Context(), h.db, status, limit)
	if err != nil {
		rest.Unavailable(c, "database unavailable")
		return
	}
	out := make([]rolloutView, 0, len(rs))
	for _, r := range rs {
		var op *models.Output
		if r.OutputAt != nil {
			if o, err := models.GetOutput(c.Request.Context(), h.db, r.ID); err == nil {
				op = &o
			}
		}
		out = append(out, view(r, op))
	}
	c.JSON(http.StatusOK, gin.H{"rollouts": out})
}
