package flywheel

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/gatehouse/gatehouse/api/rest"
	models "github.com/gatehouse/gatehouse/models/flywheel"
	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// IdempotencyKeyHeader makes an enqueue safe to retry.
const IdempotencyKeyHeader = "Idempotency-Key"

type enqueueItem struct {
	TurnInput   *string         `json:"turn_input"`
	DeadlineS   *float64        `json:"deadline_s"`
	TaskID      *string         `json:"task_id"`
	Metadata    json.RawMessage `json:"metadata"`
	MaxAttempts *int            `json:"max_attempts"`
	Owner       *ownerSpec      `json:"owner"`
}

type enqueueRequest struct {
	Rollouts []enqueueItem `json:"rollouts"`
}

type fromTurnsRequest struct {
	Turns []struct {
		AgentID string `json:"agent_id"`
		TurnID  string `json:"turn_id"`
		// Owner picks one of several keys' turns (key:<credential id>).
		Owner string `json:"owner"`
	} `json:"turns"`
	DeadlineS   *float64   `json:"deadline_s"`
	MaxAttempts *int       `json:"max_attempts"`
	Owner       *ownerSpec `json:"owner"`
}

const maxEnqueue = 256

// Enqueue handles POST /operator/v1/rollouts.
func (h *Handler) Enqueue(c *gin.Context) {
	var req enqueueRequest
	if !decodeJSON(c, &req) {
		return
	}
	if len(req.Rollouts) == 0 || len(req.Rollouts) > maxEnqueue {
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "rollouts must hold 1-256 items", gin.H{"path": "/rollouts"})
		return
	}
	news := make([]models.NewRollout, 0, len(req.Rollouts))
	for i, it := range req.Rollouts {
		at := "/rollouts/" + strconv.Itoa(i)
		if it.TurnInput == nil {
			rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "turn_input is required", gin.H{"path": at + "/turn_input"})
			return
		}
		if len(it.Metadata) > 0 && string(it.Metadata) != "null" && it.Metadata[0] != '{' {
			rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "metadata must be an object", gin.H{"path": at + "/metadata"})
			return
		}
		var u unstorable
		u.text(at+"/turn_input", it.TurnInput)
		u.text(at+"/task_id", it.TaskID)
		u.raw(at+"/metadata", rawOrNil(it.Metadata))
		if len(u) > 0 {
			rest.Abort(c, http.StatusUnprocessableEntity, "unstorable_value", u[0].Message, gin.H{"path": u[0].Path})
			return
		}
		if it.TaskID != nil && (*it.TaskID == "" || len(*it.TaskID) > 255) {
			rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "task_id must be 1-255 characters", gin.H{"path": at + "/task_id"})
			return
		}
		n, ok := h.newRollout(c, at, it.DeadlineS, it.MaxAttempts)
		if !ok {
			return
		}
		owner, ok := h.resolveOwner(c, at+"/owner", it.Owner, models.OwnerUnrestricted)
		if !ok {
			return
		}
		n.Owner = owner
		n.TurnInput, n.TaskID, n.Metadata = *it.TurnInput, it.TaskID, rawOrNil(it.Metadata)
		n.EnqueueKey = enqueueKey(c, i)
		news = append(news, n)
	}
	h.start(c, news)
}

// FromTurns handles POST /operator/v1/rollouts/from-turns: each stored
// production turn becomes a rollout of its input_text, owned by the key
// that posted the turn unless the request names an owner.
func (h *Handler) FromTurns(c *gin.Context) {
	var req fromTurnsRequest
	if !decodeJSON(c, &req) {
		return
	}
	if len(req.Turns) == 0 || len(req.Turns) > maxEnqueue {
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "turns must hold 1-256 items", gin.H{"path": "/turns"})
		return
	}
	news := make([]models.NewRollout, 0, len(req.Turns))
	for i, ref := range req.Turns {
		at := "/turns/" + strconv.Itoa(i)
		t, err := models.GetTurn(c.Request.Context(), h.db, ref.Owner, ref.AgentID, ref.TurnID)
		if errors.Is(err, models.ErrNotFound) {
			rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "no stored turn "+ref.AgentID+"/"+ref.TurnID, gin.H{"path": at})
			return
		}
		if errors.Is(err, models.ErrAmbiguousTurn) {
			rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "several keys stored "+ref.AgentID+"/"+ref.TurnID+": name its owner", gin.H{"path": at + "/owner"})
			return
		}
		if err != nil {
			rest.Unavailable(c, "database unavailable")
			return
		}
		if t.InputText == nil {
			rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "turn has no input_text to replay", gin.H{"path": at})
			return
		}
		n, ok := h.newRollout(c, at, req.DeadlineS, req.MaxAttempts)
		if !ok {
			return
		}
		owner, ok := h.resolveOwner(c, "/owner", req.Owner, t.Owner)
		if !ok {
			return
		}
		n.Owner = owner
		n.TurnInput, n.TaskID, n.SourceAgent, n.SourceTurn = *t.InputText, t.TaskID, &t.AgentID, &t.TurnID
		n.EnqueueKey = enqueueKey(c, i)
		news = append(news, n)
	}
	h.start(c, news)
}

func (h *Handler) newRollout(c *gin.Context, at string, deadlineS *float64, maxAttempts *int) (models.NewRollout, bool) {
	d := 600.0
	if deadlineS != nil {
		d = *deadlineS
	}
	if d < 1 || d > 7*86400 {
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "deadline_s must be 1-604800 seconds", gin.H{"path": at + "/deadline_s"})
		return models.NewRollout{}, false
	}
	attempts := h.opts.MaxAttempts
	if maxAttempts != nil {
		attempts = *maxAttempts
	}
	if attempts < 1 || attempts > 100 {
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "max_attempts must be 1-100", gin.H{"path": at + "/max_attempts"})
		return models.NewRollout{}, false
	}
	return models.NewRollout{ID: models.NewRolloutID(), DeadlineAt: h.opts.Now().Add(time.Duration(d * float64(time.Second))), MaxAttempts: attempts}, true
}

func enqueueKey(c *gin.Context, i int) *string {
	k := c.GetHeader(IdempotencyKeyHeader)
	if k == "" || len(k) > 255 {
		return nil
	}
	k = k + "#" + strconv.Itoa(i)
	return &k
}

// start stores each rollout (its id minted first) and starts its
// workflow. A retried enqueue with the same Idempotency-Key finds the
// stored rows and (re)starts any workflow that did not start.
func (h *Handler) start(c *gin.Context, news []models.NewRollout) {
	ids := make([]string, 0, len(news))
	for _, n := range news {
		r, _, err := models.Enqueue(c.Request.Context(), h.db, n)
		if err != nil {
			rest.Unavailable(c, "could not store rollouts; retry with the same Idempotency-Key", gin.H{"rollout_ids": ids})
			return
		}
		if err := h.startWorkflow(c.Request.Context(), r); err != nil {
			rest.UnavailableAs(c, "temporal_unavailable", "could not start the rollout workflow; retry with the same Idempotency-Key", gin.H{"rollout_ids": ids})
			return
		}
		ids = append(ids, r.ID)
	}
	c.JSON(http.StatusCreated, gin.H{"rollout_ids": ids})
}

func (h *Handler) startWorkflow(ctx context.Context, r models.Rollout) error {
	_, err := h.temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: wf.WorkflowID(r.ID), TaskQueue: h.opts.TaskQueue,
		TypedSearchAttributes: temporalSearch(),
	}, wf.RolloutWorkflow, wf.RolloutInput{RolloutID: r.ID, DeadlineAt: r.DeadlineAt, FinalizeLocally: true, QuietVisibility: true})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return nil
	}
	return err
}

// Cancel handles POST /operator/v1/rollouts/:id/cancel.
func (h *Handler) Cancel(c *gin.Context) {
	id := c.Param("id")
	if _, err := models.GetRollout(c.Request.Context(), h.db, id); errors.Is(err, models.ErrNotFound) {
		rest.Abort(c, http.StatusNotFound, "not_found", "no such rollout")
		return
	}
	err := h.temporal.SignalWorkflow(c.Request.Context(), wf.WorkflowID(id), "", wf.CancelSignal, wf.CancelRequest{Detail: "cancelled by an operator"})
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		rest.Abort(c, http.StatusConflict, "rollout_ended", "the rollout has already ended")
		return
	}
	if err != nil {
		rest.UnavailableAs(c, "temporal_unavailable", "could not reach Temporal to cancel the rollout; retry")
		return
	}
	c.JSON(http.StatusAccepted, gin.H{"rollout_id": id, "cancel": "requested"})
}

func decodeJSON(c *gin.Context, v any) bool {
	body, ok := rest.ReadBody(c)
	if !ok {
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		rest.Abort(c, http.StatusBadRequest, "malformed_json", "body is not the expected JSON: "+err.Error())
		return false
	}
	return true
}
