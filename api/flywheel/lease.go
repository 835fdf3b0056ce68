package flywheel

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/contracts"
	models "github.com/gatehouse/gatehouse/models/flywheel"
	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// LeaseTokenHeader carries the lease (fencing) token.
const LeaseTokenHeader = "Flywheel-Lease-Token"

// holder reads the rollout credentials of a heartbeat or output request;
// it returns false when it has answered 401.
func holder(c *gin.Context) (models.Holder, bool) {
	key, ok := rest.BearerToken(c.Request)
	if !ok {
		c.Header("WWW-Authenticate", `Bearer realm="gatehouse-rollout"`)
		rest.Abort(c, http.StatusUnauthorized, "unauthorized", "missing bearer credential: use the rollout's api_key from the claim")
		return models.Holder{}, false
	}
	if id := c.Param("id"); strings.ContainsRune(id, 0) || !utf8.ValidString(id) {
		// No rollout id holds these, and PostgreSQL would refuse the query.
		rest.Abort(c, http.StatusNotFound, "not_found", "no such rollout")
		return models.Holder{}, false
	}
	token := c.GetHeader(LeaseTokenHeader)
	if token == "" {
		rest.Abort(c, http.StatusConflict, "stale_lease", "missing "+LeaseTokenHeader+" header: send the lease_token from the claim")
		return models.Holder{}, false
	}
	return models.Holder{RolloutID: c.Param("id"), APIKey: key, LeaseToken: token}, true
}

// leaseError maps the lease-guarded errors to statuses.
func (h *Handler) leaseError(c *gin.Context, err error) {
	switch {
	case errors.Is(err, models.ErrUnknownKey):
		rest.Abort(c, http.StatusUnauthorized, "unauthorized", "unknown rollout api_key")
	case errors.Is(err, models.ErrForeignKey):
		rest.Abort(c, http.StatusForbidden, "forbidden", "this api_key belongs to another rollout")
	case errors.Is(err, models.ErrOutputAccepted):
		rest.Abort(c, http.StatusConflict, "output_already_accepted", "this rollout's output was already accepted")
	case errors.Is(err, models.ErrGone):
		rest.Abort(c, http.StatusGone, "rollout_gone", "the rollout is past its deadline_ts or has ended")
	case errors.Is(err, models.ErrStaleLease):
		rest.Abort(c, http.StatusConflict, "stale_lease", "fenced: the lease token is not the current lease's, or the lease expired; claim again")
	default:
		h.unavailable(c, "lease operation", err, "database unavailable; retry")
	}
}

// Heartbeat handles POST /flywheel/rollouts/:id/heartbeat. The extension
// is a compare-and-swap in the database (authority for whether it landed
// before expiry, and counter of heartbeats); the workflow is signalled off
// the request path, shortly before the expiry it last heard of, so its
// timer moves (see heartbeatSignaller). A lost signal is harmless: when the
// workflow's timer fires it re-reads the row and finds the later expiry.
// It commits through the heartbeat pool (models/lease_pool.go says why a
// heartbeat need not wait for the WAL flush): the heartbeats that arrive
// together share one statement on PostgreSQL and one transaction on
// SQLite (models.HeartbeatBatcher); on a pool the batcher cannot hold,
// each goes to the pool alone (models.ExtendLease).
func (h *Handler) Heartbeat(c *gin.Context) {
	hd, ok := holder(c)
	if !ok {
		return
	}
	e, err := h.extendLease(c.Request.Context(), hd)
	if err != nil {
		h.leaseError(c, err)
		return
	}
	if !e.GrantedAt.IsZero() {
		u, at := toldByGrant(e, h.opts.Now())
		h.heartbeats.granted(hd.RolloutID, u, at)
	}
	h.heartbeats.enqueue(hd.RolloutID, wf.LeaseUpdate{Epoch: e.Epoch, ExpiresAt: e.ExpiresAt})
	c.Data(http.StatusOK, "application/json; charset=utf-8", heartbeatBody(epochSeconds(e.ExpiresAt)))
}

// extendLease extends hd's lease as of now: through the batcher, or
// alone on the pool where there is none.
func (h *Handler) extendLease(ctx context.Context, hd models.Holder) (models.Extension, error) {
	if h.beats != nil {
		return h.beats.Extend(ctx, hd, h.opts.Now())
	}
	return models.ExtendLease(ctx, h.opts.HeartbeatDB, hd, h.opts.Now())
}

// toldByGrant is what the grant's notice tells (or told) the workflow of
// lease e, and as of when: the outbox guarantees the notice, from
// whichever process claimed. While the notice still waits (each heartbeat
// defers it to shortly before the expiry it sets, up to
// models.GrantNoticeWaitsUntil) it will carry the lease's expiry as it is
// then, so at least this heartbeat's; after that (or if it was sent at
// once) it carried at least the granted expiry. The heartbeat's own
// signal then waits until shortly before that expiry. A heartbeat that
// came too late to defer the notice is taken for one that did; that only
// costs the workflow an ExpireLease that finds the later expiry.
func toldByGrant(e models.Extension, now time.Time) (wf.LeaseUpdate, time.Time) {
	if now.Before(models.GrantNoticeWaitsUntil(e.GrantedAt, e.GrantedExpiry)) {
		return wf.LeaseUpdate{Epoch: e.Epoch, ExpiresAt: e.ExpiresAt}, now
	}
	return wf.LeaseUpdate{Epoch: e.Epoch, ExpiresAt: e.GrantedExpiry}, e.GrantedAt
}

type wireExclusion struct {
	Reason string  `json:"reason"`
	Detail *string `json:"detail"`
}

type wireOutput struct {
	FinalText             string          `json:"final_text"`
	ToolCalls             json.RawMessage `json:"tool_calls"`
	ToolCallsOmittedCount *json.Number    `json:"tool_calls_omitted_count"`
	LLMCallCount          *json.Number    `json:"llm_call_count"`
	Artifacts             json.RawMessage `json:"artifacts"`
	Reward                *json.Number    `json:"reward"`
	Success               *bool           `json:"success"`
	Exclusion             *wireExclusion  `json:"exclusion"`
	Events                json.RawMessage `json:"events"`
	Timing                json.RawMessage `json:"timing"`
	AgentFingerprint      json.RawMessage `json:"agent_fingerprint"`
}

// decodeOutput turns a schema-valid body into the stored row; the string
// names the JSON pointer of a value storage cannot hold.
func decodeOutput(body []byte) (models.Output, string, error) {
	var w wireOutput
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&w); err != nil {
		return models.Output{}, "", err
	}
	sum := sha256.Sum256(body)
	o := models.Output{
		BodySHA256: hex.EncodeToString(sum[:]), FinalText: w.FinalText, ToolCalls: rawOrNil(w.ToolCalls),
		Artifacts: rawOrNil(w.Artifacts), Success: w.Success, Events: rawOrNil(w.Events), Timing: rawOrNil(w.Timing),
		AgentFingerprint: rawOrNil(w.AgentFingerprint),
	}
	o.ToolCallLanded = toolCallLanded(o.ToolCalls)
	if w.ToolCallsOmittedCount != nil {
		n, err := schemaInt(*w.ToolCallsOmittedCount)
		if err != nil {
			return o, "/tool_calls_omitted_count", err
		}
		o.ToolCallsOmittedCount = n
	}
	if w.LLMCallCount != nil {
		n, err := schemaInt(*w.LLMCallCount)
		if err != nil {
			return o, "/llm_call_count", err
		}
		o.LLMCallCount = &n
	}
	if w.Reward != nil {
		f, err := strconv.ParseFloat(w.Reward.String(), 64)
		if err != nil {
			return o, "/reward", err
		}
		o.Reward = &f
	}
	if w.Exclusion != nil {
		o.ExclusionReason, o.ExclusionDetail = &w.Exclusion.Reason, w.Exclusion.Detail
	}
	return o, "", nil
}

// Output handles POST /flywheel/rollouts/:id/output: validate against
// RolloutOutput (server-authored fields fail additionalProperties: false),
// accept once under the current lease (the row is the authority; the same
// statement writes the output's notice; outputs arriving together commit
// together, models.OutputBatcher), answer, and tell the workflow off
// the request path (notifier).
func (h *Handler) Output(c *gin.Context) {
	hd, ok := holder(c)
	if !ok {
		return
	}
	body, ok := rest.ReadBody(c)
	if !ok || !validate(c, h.schemas.RolloutOutput, body) {
		return
	}
	o, path, err := decodeOutput(body)
	if err != nil {
		if path != "" {
			unrepresentable(c, path)
			return
		}
		rest.Abort(c, http.StatusUnprocessableEntity, "schema_violation", "body could not be decoded: "+err.Error())
		return
	}
	if u := outputUnstorable(o); len(u) > 0 {
		rest.Abort(c, http.StatusUnprocessableEntity, "unstorable_value",
			"a value the schema admits but the store cannot hold; nothing was stored", []contracts.Violation(u))
		return
	}
	now := h.opts.Now()
	epoch, same, err := h.outputs.Accept(c.Request.Context(), hd, o, now)
	if errors.Is(err, models.ErrOutputAccepted) {
		rest.Abort(c, http.StatusConflict, "output_already_accepted", "this rollout's output was already accepted",
			gin.H{"same_body": same})
		return
	}
	if models.ValueRefused(err) {
		rest.Abort(c, http.StatusUnprocessableEntity, "unstorable_value", "the store refused a value of this output; nothing was stored")
		return
	}
	if err != nil {
		h.leaseError(c, err)
		return
	}
	h.heartbeats.forget(hd.RolloutID)
	h.notices.notify(models.Notice{RolloutID: hd.RolloutID, Epoch: epoch, Kind: models.NoticeOutput, DueAt: now.Add(models.OutputNoticeGrace)})
	c.JSON(http.StatusOK, gin.H{"accepted": true, "rollout_id": hd.RolloutID})
}
