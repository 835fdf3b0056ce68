package rest

// Param is one documented query or header parameter.
type Param struct {
	Name        string
	Description string
	Required    bool
	Schema      map[string]any
}

// Body is a documented answer body other than the error envelope.
type Body struct {
	// Media is its content type; empty means application/json.
	Media string
	// Schema describes it.
	Schema map[string]any
	// Description is used when the route's Responses does not name the code.
	Description string
}

// operationSpec is what the document knows of an operation beyond its
// route registration: a stable operationId, its parameters and the bodies
// it answers. One table keeps every operation's shape in one place; a test
// fails when a documented route has no row here, or a row no route.
type operationSpec struct {
	ID      string
	Query   []Param
	Headers []Param
	// Request is used when the route's Op.Request is nil.
	Request map[string]any
	// OptionalBody marks a request body the handler also accepts empty.
	OptionalBody bool
	Bodies       map[int]Body
}

func jsonBody(s map[string]any) Body { return Body{Schema: s} }

func list(field string, item map[string]any) Body {
	return jsonBody(object([]string{field}, schema{field: arrayOf(item)}))
}

var rolloutIDs = jsonBody(object([]string{"rollout_ids"}, schema{"rollout_ids": arrayOf(typed("string"))}))

var leaseToken = Param{Name: "Flywheel-Lease-Token", Required: true, Description: "the lease_token of the claim", Schema: typed("string")}

var flylabDecision = map[int]Body{
	200: jsonBody(object([]string{"experiment", "session_state_revision"}, schema{"experiment": component("FlyLabExperiment"), "session_state_revision": typed("integer")})),
	202: {Description: "the decision is signalled; the workflow has not answered yet",
		Schema: object([]string{"experiment_id", "status"}, schema{"experiment_id": typed("string"), "status": schema{"const": "signalled"}})},
}

// operationSpecs is keyed by "METHOD /openapi/{path}".
var operationSpecs = map[string]operationSpec{
	"GET /openapi.json": {ID: "getOpenAPIDocument", Bodies: map[int]Body{200: jsonBody(object([]string{"openapi", "info", "paths"}, schema{
		"openapi": typed("string"), "info": typed("object"), "paths": typed("object")}))}},
	"GET /healthz": {ID: "getLiveness", Bodies: map[int]Body{200: jsonBody(object([]string{"status", "build"}, schema{
		"status": schema{"const": "ok"}, "build": component("BuildInfo")}))}},
	"GET /readyz": {ID: "getReadiness", Bodies: map[int]Body{
		200: jsonBody(described(schema{"type": "object", "additionalProperties": typed("string")}, `each dependency's state: "ok" or "error: …"`)),
		503: jsonBody(described(schema{"type": "object", "additionalProperties": typed("string")}, `each dependency's state: "ok" or "error: …"`)),
	}},
	"GET /metrics": {ID: "getMetrics", Bodies: map[int]Body{200: {Media: "text/plain", Schema: typed("string")}}},

	"POST /v1/ping":           {ID: "startPing", OptionalBody: true, Bodies: map[int]Body{200: jsonBody(component("PingResult")), 202: jsonBody(component("PingResult"))}},
	"POST /v1/ping/{id}/pong": {ID: "answerPing", Bodies: map[int]Body{200: jsonBody(component("PingResult"))}},

	"POST /operator/v1/keys":        {ID: "mintKey", Bodies: map[int]Body{201: jsonBody(component("Credential"))}},
	"GET /operator/v1/keys":         {ID: "listKeys", Bodies: map[int]Body{200: list("keys", component("Credential"))}},
	"DELETE /operator/v1/keys/{id}": {ID: "revokeKey", Bodies: map[int]Body{200: jsonBody(object([]string{"revoked"}, schema{"revoked": typed("string")}))}},

	"GET /v1/flylab/tools": {ID: "listFlyLabTools", Bodies: map[int]Body{200: list("tools", object([]string{"name", "description", "input_schema"}, schema{
		"name": typed("string"), "title": typed("string"), "description": typed("string"), "annotations": typed("object"), "input_schema": typed("object")}))}},
	"POST /v1/flylab/tools/{name}":        {ID: "callFlyLabTool", OptionalBody: true, Bodies: map[int]Body{200: jsonBody(component("FlyLabToolResult"))}},
	"GET /v1/flylab/evidence/{bundle_id}": {ID: "downloadFlyLabEvidence", Bodies: map[int]Body{200: {Media: "application/vnd.flylab.evidence+json", Schema: typed("object")}}},
	"GET /operator/v1/flylab/experiments": {ID: "listFlyLabExperiments",
		Query:  []Param{{Name: "status", Description: "only experiments in this status (awaiting_approval, approved, rejected, …)", Schema: typed("string")}},
		Bodies: map[int]Body{200: list("experiments", component("FlyLabExperiment"))}},
	"GET /operator/v1/flylab/experiments/{experiment_id}":          {ID: "getFlyLabExperiment", Bodies: map[int]Body{200: jsonBody(component("FlyLabExperiment"))}},
	"POST /operator/v1/flylab/experiments/{experiment_id}/approve": {ID: "approveFlyLabExperiment", Bodies: flylabDecision},
	"POST /operator/v1/flylab/experiments/{experiment_id}/reject":  {ID: "rejectFlyLabExperiment", Bodies: flylabDecision},
	"GET /operator/v1/flylab/sessions": {ID: "listFlyLabSessions", Bodies: map[int]Body{200: list("sessions", object(
		[]string{"page_session_id", "owner", "created_at", "workflow_id"}, schema{"page_session_id": typed("string"), "owner": typed("string"),
			"created_at": schema{"type": "string", "format": "date-time"}, "workflow_id": typed("string"), "state_revision": typed("integer"),
			"stage": typed("string"), "agent_status": typed("string"), "next_action": schema{}, "human_gate": schema{}}))}},

	"POST /flywheel/turns": {ID: "storeProductionTurns", Bodies: map[int]Body{202: jsonBody(object([]string{"accepted", "duplicates"}, schema{
		"accepted": typed("integer"), "duplicates": typed("integer")}))}},
	"POST /flywheel/claim": {ID: "claimRollouts", OptionalBody: true, Bodies: map[int]Body{200: jsonBody(component("ClaimResponse"))}},
	"POST /flywheel/rollouts/{id}/heartbeat": {ID: "heartbeatRollout", Headers: []Param{leaseToken},
		Bodies: map[int]Body{200: jsonBody(object([]string{"lease_expires_ts"}, schema{"lease_expires_ts": typed("number")}))}},
	"POST /flywheel/rollouts/{id}/output": {ID: "submitRolloutOutput", Headers: []Param{leaseToken},
		Bodies: map[int]Body{200: jsonBody(object([]string{"accepted", "rollout_id"}, schema{"accepted": schema{"const": true}, "rollout_id": typed("string")}))}},

	"POST /operator/v1/rollouts": {ID: "enqueueRollouts", Bodies: map[int]Body{201: rolloutIDs},
		Headers: []Param{{Name: "Idempotency-Key", Description: "makes the enqueue safe to retry (at most 255 bytes)", Schema: schema{"type": "string", "maxLength": 255}}}},
	"POST /operator/v1/rollouts/from-turns": {ID: "enqueueRolloutsFromTurns", Bodies: map[int]Body{201: rolloutIDs},
		Request: object([]string{"turns"}, schema{
			"turns": schema{"type": "array", "minItems": 1, "maxItems": 256, "items": object([]string{"agent_id", "turn_id"}, schema{
				"agent_id": typed("string"), "turn_id": typed("string"), "owner": described(typed("string"), "key:<credential id> when several keys stored the turn")})},
			"deadline_s": typed("number"), "max_attempts": typed("integer"), "owner": typed("object"),
		})},
	"GET /operator/v1/rollouts": {ID: "listRollouts", Bodies: map[int]Body{200: list("rollouts", component("Rollout"))},
		Query: []Param{
			{Name: "status", Schema: schema{"enum": []string{"queued", "leased", "completed", "excluded"}}},
			{Name: "limit", Schema: schema{"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}},
		}},
	"GET /operator/v1/rollouts/{id}": {ID: "getRollout", Bodies: map[int]Body{200: jsonBody(component("Rollout"))}},
	"POST /operator/v1/rollouts/{id}/cancel": {ID: "cancelRollout", Bodies: map[int]Body{202: jsonBody(object([]string{"rollout_id", "cancel"}, schema{
		"rollout_id": typed("string"), "cancel": schema{"const": "requested"}}))}},
	"GET /operator/v1/turns/{agent_id}/{turn_id}": {ID: "getProductionTurn",
		Query: []Param{{Name: "owner", Description: "key:<credential id>: that key's turn, when several keys stored one", Schema: typed("string")}},
		Bodies: map[int]Body{200: jsonBody(object([]string{"owner", "body_sha256", "agent_id", "turn_id", "input_text", "tool_calls", "received_at"}, schema{
			"owner": typed("string"), "body_sha256": typed("string"), "agent_id": typed("string"), "turn_id": typed("string"),
			"input_text": typed("string"), "final_text": schema{}, "tool_calls": schema{}, "tool_call_landed": schema{},
			"received_at": schema{"type": "string", "format": "date-time"}}))}},

	"GET /v1/research/tools": {ID: "listResearchTools", Bodies: map[int]Body{200: jsonBody(object([]string{"tools", "public", "hidden"}, schema{
		"tools": arrayOf(object([]string{"name", "description", "inputSchema", "hidden", "read_only"}, schema{"name": typed("string"),
			"description": typed("string"), "inputSchema": typed("object"), "hidden": typed("boolean"), "read_only": typed("boolean")})),
		"public": typed("integer"), "hidden": typed("integer")}))}},
	"POST /v1/research/tools/{name}":    {ID: "callResearchTool", OptionalBody: true, Bodies: map[int]Body{200: jsonBody(described(typed("object"), "the tool's result"))}},
	"GET /operator/v1/research/reviews": {ID: "listPendingHumanReviews", Bodies: map[int]Body{200: list("review_requests", typed("object"))}},
	"GET /operator/v1/research/experiments": {ID: "listResearchExperiments", Bodies: map[int]Body{200: jsonBody(object([]string{"experiments", "authority"}, schema{
		"experiments": arrayOf(object([]string{"project_id", "workflow_id"}, schema{"project_id": typed("string"), "workflow_id": typed("string")})),
		"authority":   typed("string")}))}},
	"POST /operator/v1/research/reviews/{id}/verdict": {ID: "answerHumanReview", Bodies: map[int]Body{200: jsonBody(described(typed("object"), "the recorded verdict"))},
		Request: object([]string{"verdict", "synopsis"}, schema{"verdict": typed("string"), "synopsis": typed("string"),
			"return_to": typed("string"), "notes": typed("string")})},
}
