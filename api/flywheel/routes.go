package flywheel

import (
	"net/http"

	"github.com/gatehouse/gatehouse/api/rest"
	platform "github.com/gatehouse/gatehouse/models/platform"
)

// Mount registers every flywheel route on r.
func (h *Handler) Mount(r *rest.Router, d rest.Deps) {
	agent := rest.Require(d.DB, platform.RoleAgent)
	agentAuth, rolloutAuth, opAuth := []string{rest.RoleAgent}, []string{rest.RoleRollout}, []string{rest.RoleOperator}
	ref := func(def string) map[string]any {
		return map[string]any{"$ref": "https://schemas.percepteye.ai/flywheel/1.json#/$defs/" + def}
	}
	fw := r.Group("/flywheel")
	fw.Handle(http.MethodPost, "/turns", rest.Op{Summary: "Store a ProductionTurnBatch (idempotent per calling key, agent_id, turn_id)", Tag: "flywheel", Auth: agentAuth,
		Request: ref("ProductionTurnBatch"),
		Responses: map[int]string{202: `{"accepted": n, "duplicates": m}`, 400: "malformed JSON", 401: "no or bad key",
			409: "a turn_id already stored under this key with a different body (stored_sha256, received_sha256); nothing stored",
			422: "schema violations (path, message); or values the store cannot hold (unstorable_value: those turns not stored, the rest stored, with accepted and duplicates)"}},
		agent, h.Turns)
	fw.Handle(http.MethodPost, "/claim", rest.Op{Summary: "Lease queued rollouts: a ClaimResponse (empty: rollouts [] with poll_after_ms)", Tag: "flywheel", Auth: agentAuth,
		Request: map[string]any{"type": "object", "properties": map[string]any{
			"max_rollouts": map[string]any{"type": "integer", "minimum": 1, "maximum": 64},
			"lease_s":      map[string]any{"type": "number", "exclusiveMinimum": 0, "description": "clamped to the server's bounds; lease_expires_ts is what was granted"},
		}},
		Responses: map[int]string{200: "ClaimResponse: only rollouts whose owner this key may take", 401: "no or bad key", 422: "invalid input",
			503: "the database cannot be reached (retry after Retry-After); a Temporal outage does not stop claims"}},
		h.counted, h.agents.require, h.Claim)
	fw.Handle(http.MethodPost, "/rollouts/:id/heartbeat", rest.Op{Summary: "Extend the lease (rollout api_key + Flywheel-Lease-Token)", Tag: "flywheel", Auth: rolloutAuth,
		Responses: map[int]string{200: `{"lease_expires_ts": t}`, 401: "unknown api_key", 403: "another rollout's api_key", 409: "stale or foreign lease token (fenced)", 410: "past deadline or ended"}},
		h.counted, rest.QuietAccessLog, h.Heartbeat)
	fw.Handle(http.MethodPost, "/rollouts/:id/output", rest.Op{Summary: "Submit the RolloutOutput once (rollout api_key + Flywheel-Lease-Token)", Tag: "flywheel", Auth: rolloutAuth,
		Request:   ref("RolloutOutput"),
		Responses: map[int]string{200: "accepted", 400: "malformed JSON", 401: "unknown api_key", 403: "another rollout's api_key", 409: "already accepted, or fenced", 410: "past deadline or ended", 422: "schema violations"}},
		h.counted, h.Output)

	op := r.Group("/operator/v1", rest.Require(d.DB, platform.RoleOperator))
	op.Handle(http.MethodPost, "/rollouts", rest.Op{Summary: "Enqueue rollouts; each starts workflow rollout/<id> (Idempotency-Key makes it retryable)", Tag: "operator", Auth: opAuth,
		Request: map[string]any{"type": "object", "required": []string{"rollouts"}, "properties": map[string]any{"rollouts": map[string]any{
			"type": "array", "minItems": 1, "maxItems": 256, "items": map[string]any{"type": "object", "required": []string{"turn_input"}, "properties": map[string]any{
				"turn_input": map[string]any{"type": "string"}, "deadline_s": map[string]any{"type": "number"}, "task_id": map[string]any{"type": "string"},
				"metadata": map[string]any{"type": "object"}, "max_attempts": map[string]any{"type": "integer", "minimum": 1, "maximum": 100},
				"owner": map[string]any{"type": "object", "description": "who may claim it: {\"key\": credential id} (that agent key only) or {\"project\": id} " +
					"(keys that may use the project); absent: keys not limited to projects", "properties": map[string]any{
					"key": map[string]any{"type": "string"}, "project": map[string]any{"type": "string"}}},
			}}}}},
		Responses: map[int]string{201: `{"rollout_ids": [...]}`, 422: "invalid input", 503: "Temporal unavailable"}}, h.Enqueue)
	op.Handle(http.MethodPost, "/rollouts/from-turns", rest.Op{Summary: "Enqueue stored production turns as rollouts of their input_text, owned by the key that posted each unless owner is given", Tag: "operator", Auth: opAuth,
		Responses: map[int]string{201: `{"rollout_ids": [...]}`, 422: "unknown turn or invalid input"}}, h.FromTurns)
	op.Handle(http.MethodGet, "/rollouts", rest.Op{Summary: "List rollouts (?status=&limit=)", Tag: "operator", Auth: opAuth,
		Responses: map[int]string{200: "rollouts"}}, h.ListRollouts)
	op.Handle(http.MethodGet, "/rollouts/:id", rest.Op{Summary: "A rollout: status, attempts, lease history, output, observed vs reported LLM calls, on_policy", Tag: "operator", Auth: opAuth,
		Responses: map[int]string{200: "the rollout", 404: "unknown id"}}, h.GetRollout)
	op.Handle(http.MethodPost, "/rollouts/:id/cancel", rest.Op{Summary: "Cancel a rollout (exclusion cancelled)", Tag: "operator", Auth: opAuth,
		Responses: map[int]string{202: "cancel requested", 404: "unknown id", 409: "already ended"}}, h.Cancel)
	op.Handle(http.MethodGet, "/turns/:agent_id/:turn_id", rest.Op{Summary: "A stored production turn (tool_calls exactly as received; ?owner=key:<credential id> picks one key's)", Tag: "operator", Auth: opAuth,
		Responses: map[int]string{200: "the turn", 404: "unknown turn", 409: "several keys stored it: pass ?owner="}}, h.GetTurn)

	r.Undocumented(http.MethodPost, "/llm/:token/v1/*path", "per-rollout LLM gateway: an OpenAI-compatible proxy, not part of the REST API", h.Gateway)
}
