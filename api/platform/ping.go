package platform

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/gatehouse/gatehouse/api/rest"
	wf "github.com/gatehouse/gatehouse/workflows/platform"
)

// Pinger runs the ping workflow through Temporal.
type Pinger struct {
	Temporal  client.Client
	TaskQueue string
}

type pingRequest struct {
	Message string `json:"message"`
	// Hold starts the workflow and returns without answering it; a later
	// POST /v1/ping/:id/pong answers it.
	Hold bool `json:"hold"`
}

type pingResponse struct {
	WorkflowID string  `json:"workflow_id"`
	RunID      string  `json:"run_id"`
	Status     string  `json:"status"`
	Message    string  `json:"message,omitempty"`
	Reply      string  `json:"reply,omitempty"`
	ElapsedMS  float64 `json:"elapsed_ms"`
}

const maxPingMessage = 1024

// Start handles POST /v1/ping: start a ping workflow, signal it, and wait
// for its result (or, with hold, return once it is started).
func (p Pinger) Start(c *gin.Context) {
	var req pingRequest
	if c.Request.ContentLength != 0 {
		if err := c.ShouldBindJSON(&req); err != nil {
			rest.Abort(c, http.StatusBadRequest, "invalid_json", "body must be {\"message\": string, \"hold\": bool}")
			return
		}
	}
	if len(req.Message) > maxPingMessage {
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "message is longer than 1024 bytes", gin.H{"path": "/message"})
		return
	}
	if req.Message == "" {
		req.Message = "ping"
	}
	start := time.Now()
	ctx := c.Request.Context()
	run, err := p.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        wf.PingIDPrefix + uuid.NewString(),
		TaskQueue: p.TaskQueue,
	}, wf.PingWorkflow, wf.PingInput{Message: req.Message})
	if err != nil {
		rest.UnavailableAs(c, "temporal_unavailable", "could not start the ping workflow: "+err.Error())
		return
	}
	resp := pingResponse{WorkflowID: run.GetID(), RunID: run.GetRunID(), Status: "waiting_for_pong"}
	if req.Hold {
		resp.ElapsedMS = ms(time.Since(start))
		c.JSON(http.StatusAccepted, resp)
		return
	}
	p.answer(c, ctx, run.GetID(), "pong", start)
}

// Pong handles POST /v1/ping/:id/pong: answer a held ping and wait for it.
func (p Pinger) Pong(c *gin.Context) {
	id := wf.PingIDPrefix + c.Param("id")
	p.answer(c, c.Request.Context(), id, "pong", time.Now())
}

func (p Pinger) answer(c *gin.Context, ctx context.Context, id, reply string, start time.Time) {
	if err := p.Temporal.SignalWorkflow(ctx, id, "", wf.PongSignal, wf.Pong{Reply: reply}); err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			rest.Abort(c, http.StatusNotFound, "not_found", "no waiting ping "+strings.TrimPrefix(id, wf.PingIDPrefix))
			return
		}
		rest.UnavailableAs(c, "temporal_unavailable", err.Error())
		return
	}
	waitCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	run := p.Temporal.GetWorkflow(waitCtx, id, "")
	var res wf.PingResult
	if err := run.Get(waitCtx, &res); err != nil {
		rest.Abort(c, http.StatusGatewayTimeout, "ping_failed", err.Error())
		return
	}
	c.JSON(http.StatusOK, pingResponse{
		WorkflowID: id, RunID: run.GetRunID(), Status: "completed",
		Message: res.Message, Reply: res.Reply, ElapsedMS: ms(time.Since(start)),
	})
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
