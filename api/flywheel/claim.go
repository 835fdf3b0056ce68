package flywheel

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
	models "github.com/gatehouse/gatehouse/models/flywheel"
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
// rollouts in one statement (the database guarantees no rollout goes to
// two claimers, and writes each grant's notice with it), answer a
// ClaimResponse, and tell each rollout's workflow of its lease off the
// request path (notifier), shortly before the lease expires: the workflow
// needs a grant only for its expiry timer, and an output that lands first
// makes the grant's notice unnecessary. A claim needs no answer from
// Temporal: while Temporal is down it still leases, the notices wait in
// the outbox and the workflows catch up when it returns (until then a
// lease that lapses is fenced by the row, and its workflow's expiry check
// re-queues it later).
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
	p, _ := agentOf(c)
	now, lease := h.opts.Now(), h.clampLease(leaseS)
	grants, err := models.Claim(c.Request.Context(), h.db, claimant(p), n, lease, now)
	if err != nil {
		h.unavailable(c, "claim", err, "could not claim; retry")
		return
	}
	h.notices.notify(urgentGrantNotices(grants, now, lease)...)
	out := make([]rolloutRequest, 0, len(grants))
	base := h.opts.PublicURL
	if base == "" || strings.HasSuffix(base, ":0") { // listening on an ephemeral port (tests)
		base = "http://" + c.Request.Host
	}
	for _, g := range grants {
		out = append(out, h.requestOf(g, base))
	}
	poll := int64(0)
	if len(out) == 0 {
		poll = h.opts.PollAfter.Milliseconds()
		rest.QuietenAccessLog(c) // an idle agent's poll: every few seconds from each
	}
	c.JSON(http.StatusOK, gin.H{"rollouts": out, "poll_after_ms": poll})
}

// urgentGrantNotices are the grant notices this process sends at once:
// those of leases too short to wait (models.GrantNoticeDue). The others
// wait in the outbox for the reconciler, until shortly before expiry.
func urgentGrantNotices(grants []models.Grant, now time.Time, lease time.Duration) []models.Notice {
	var out []models.Notice
	for _, g := range grants {
		due, deferred := models.GrantNoticeDue(now, g.ExpiresAt, lease)
		if deferred {
			continue
		}
		exp := g.ExpiresAt
		out = append(out, models.Notice{RolloutID: g.Rollout.ID, Epoch: g.Rollout.LeaseEpoch, Kind: models.NoticeGrant, ExpiresAt: &exp, DueAt: due})
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
