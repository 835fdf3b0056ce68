package flywheel

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
	models "github.com/gatehouse/gatehouse/models/flywheel"
	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

type claimRequest struct {
	MaxRollouts *int     `json:"max_rollouts"`
	LeaseS      *float64 `json:"lease_s"`
}

// rolloutRequest is the contract's RolloutRequest.
type rolloutRequest struct {
	RolloutID      string          `json:"rollout_id"`
	TurnInput      string          `json:"turn_input"`
	LLMURL         string          `json:"llm_url"`
	APIKey         string          `json:"api_key"`
	ArtifactsDir   string          `json:"artifacts_dir"`
	DeadlineTS     float64         `json:"deadline_ts"`
	LeaseToken     *string         `json:"lease_token"`
	LeaseExpiresTS *float64        `json:"lease_expires_ts"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
}

// Claim handles POST /flywheel/claim: lease up to max_rollouts queued
// rollouts (the database guarantees no rollout goes to two claimers), tell
// each rollout's workflow of its lease, and answer a ClaimResponse. A
// lease whose workflow could not be told is returned to the queue and left
// out of the answer, so no lease exists without its expiry timer; when no
// lease could be told, the answer is 503 with Retry-After (Temporal is
// down), not an empty claim.
func (h *Handler) Claim(c *gin.Context) {
	body, ok := rest.ReadBody(c)
	if !ok {
		return
	}
	var req claimRequest
	if len(body) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			rest.Abort(c, http.StatusBadRequest, "malformed_json", `body must be {"max_rollouts": n, "lease_s": s}`)
			return
		}
	}
	n := 1
	if req.MaxRollouts != nil {
		n = *req.MaxRollouts
	}
	if n < 1 || n > models.MaxClaimBatch {
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "max_rollouts must be 1-64", gin.H{"path": "/max_rollouts"})
		return
	}
	if req.LeaseS != nil && (*req.LeaseS <= 0 || *req.LeaseS > 86400) {
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "lease_s must be positive seconds (clamped to the server's bounds)", gin.H{"path": "/lease_s"})
		return
	}
	var leaseS float64
	if req.LeaseS != nil {
		leaseS = *req.LeaseS
	}
	p, _ := rest.PrincipalOf(c)
	grants, err := models.Claim(c.Request.Context(), h.db, claimant(p), n, h.clampLease(leaseS), h.opts.Now())
	if err != nil {
		h.unavailable(c, "claim", err, "could not claim; retry")
		return
	}
	delivered := h.tellWorkflows(c.Request.Context(), grants)
	if len(grants) > 0 && len(delivered) == 0 {
		// Temporal could not be told of any lease: an empty 200 would read
		// as "nothing queued". The grants went back to the queue without
		// costing an attempt.
		rest.UnavailableAs(c, "temporal_unavailable", "rollouts are queued but Temporal could not be told of their leases; retry after Retry-After")
		return
	}
	out := make([]rolloutRequest, 0, len(delivered))
	base := h.opts.PublicURL
	if base == "" || strings.HasSuffix(base, ":0") { // listening on an ephemeral port (tests)
		base = "http://" + c.Request.Host
	}
	for _, g := range delivered {
		out = append(out, h.requestOf(g, base))
	}
	poll := int64(0)
	if len(out) == 0 {
		poll = h.opts.PollAfter.Milliseconds()
	}
	resp := gin.H{"rollouts": out, "poll_after_ms": poll}
	c.JSON(http.StatusOK, resp)
}

// tellWorkflows signals every grant's workflow concurrently and reverts
// the grants it could not deliver.
func (h *Handler) tellWorkflows(ctx context.Context, grants []models.Grant) []models.Grant {
	ok := make([]bool, len(grants))
	var wg sync.WaitGroup
	for i, g := range grants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u := wf.LeaseUpdate{Epoch: g.Rollout.LeaseEpoch, ExpiresAt: g.ExpiresAt}
			err := h.temporal.SignalWorkflow(ctx, wf.WorkflowID(g.Rollout.ID), "", wf.LeaseSignal, u)
			if err == nil {
				ok[i] = true
				h.heartbeats.delivered(g.Rollout.ID, u) // its heartbeats' signals can wait for this expiry
				return
			}
			h.log.Warn("lease grant not delivered; re-queued", "rollout_id", g.Rollout.ID, "err", err)
			if rerr := models.RevertGrant(context.WithoutCancel(ctx), h.db, g.Rollout.ID, g.Rollout.LeaseEpoch, h.opts.Now()); rerr != nil {
				h.log.Error("revert grant", "rollout_id", g.Rollout.ID, "err", rerr)
			}
		}()
	}
	wg.Wait()
	var out []models.Grant
	for i, g := range grants {
		if ok[i] {
			out = append(out, g)
		}
	}
	return out
}

func (h *Handler) requestOf(g models.Grant, base string) rolloutRequest {
	token, exp := g.LeaseToken, epochSeconds(g.ExpiresAt)
	r := rolloutRequest{
		RolloutID: g.Rollout.ID, TurnInput: g.Rollout.TurnInput,
		LLMURL: base + "/llm/" + g.LLMToken + "/v1", APIKey: g.APIKey,
		ArtifactsDir: "rollouts/" + g.Rollout.ID + "/artifacts",
		DeadlineTS:   epochSeconds(g.Rollout.DeadlineAt), LeaseToken: &token, LeaseExpiresTS: &exp,
	}
	if g.Rollout.Metadata != nil {
		r.Metadata = json.RawMessage(*g.Rollout.Metadata)
	}
	return r
}
