package rest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gatehouse/gatehouse/contracts"
)

// schema is one JSON Schema (2020-12, OpenAPI 3.1's dialect) as data.
type schema = map[string]any

func object(required []string, props schema) schema {
	s := schema{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func typed(t string) schema               { return schema{"type": t} }
func nullable(t string) schema            { return schema{"type": []string{t, "null"}} }
func arrayOf(items schema) schema         { return schema{"type": "array", "items": items} }
func component(name string) schema        { return schema{"$ref": "#/components/schemas/" + name} }
func described(s schema, d string) schema { s["description"] = d; return s }

// errorEnvelope is the one error shape of every REST endpoint (see Error):
// open, because a few errors carry more beside it (a partly stored turn
// batch adds accepted and duplicates; research tool errors add pointer).
var errorEnvelope = described(object([]string{"error"}, schema{"error": object([]string{"code", "message"}, schema{
	"code":      described(typed("string"), "stable machine-readable code (invalid_input, not_found, unavailable, …)"),
	"message":   described(typed("string"), "what went wrong, for a person"),
	"details":   schema{"description": "what the code needs to say more: the JSON pointer (path) that broke the schema, violations, retryable: true on 503"},
	"pointer":   typed("string"),
	"reason":    typed("string"),
	"retryable": typed("boolean"),
})}), "Every error a caller can cause answers {\"error\": {\"code\", \"message\", \"details\"}}; a 503 also sends Retry-After and details.retryable.")

var credential = object([]string{"id", "role", "name", "hint", "all_projects", "created_at"}, schema{
	"id": typed("string"), "role": schema{"enum": []string{"agent", "operator"}}, "name": typed("string"),
	"hint": typed("string"), "all_projects": typed("boolean"),
	"created_at": schema{"type": "string", "format": "date-time"}, "revoked_at": schema{"type": "string", "format": "date-time"},
	"plaintext": described(typed("string"), "only in the answer that minted it"),
})

var pingResult = object([]string{"workflow_id", "run_id", "status", "elapsed_ms"}, schema{
	"workflow_id": typed("string"), "run_id": typed("string"),
	"status":  schema{"enum": []string{"waiting_for_pong", "completed"}},
	"message": typed("string"), "reply": typed("string"), "elapsed_ms": typed("number"),
})

var buildInfo = object([]string{"version", "commit", "go_version"}, schema{
	"version": typed("string"), "commit": typed("string"), "date": typed("string"), "go_version": typed("string"),
})

var exclusion = nullableObject([]string{"reason", "detail"}, schema{"reason": typed("string"), "detail": nullable("string")})

func nullableObject(required []string, props schema) schema {
	s := object(required, props)
	s["type"] = []string{"object", "null"}
	return s
}

// lease is one entry of a rollout's lease_history.
var lease = object([]string{"epoch", "claimed_by", "granted_at", "expires_at", "heartbeats", "ended_at", "end_reason", "llm_calls"}, schema{
	"epoch": typed("integer"), "claimed_by": typed("string"),
	"granted_at": schema{"type": "string", "format": "date-time"}, "expires_at": schema{"type": "string", "format": "date-time"},
	"heartbeats": typed("integer"), "ended_at": schema{"type": []string{"string", "null"}, "format": "date-time"},
	"end_reason": nullable("string"), "llm_calls": typed("integer"),
})

var rollout = object([]string{"rollout_id", "workflow_id", "owner", "status", "turn_input", "deadline_at", "attempts", "max_attempts",
	"llm_calls_observed", "created_at"}, schema{
	"rollout_id": typed("string"), "workflow_id": typed("string"), "owner": typed("string"),
	"status":     schema{"enum": []string{"queued", "leased", "completed", "excluded"}},
	"turn_input": typed("string"), "task_id": nullable("string"), "metadata": schema{},
	"source_turn": object([]string{"agent_id", "turn_id"}, schema{"agent_id": typed("string"), "turn_id": typed("string")}),
	"deadline_at": schema{"type": "string", "format": "date-time"}, "attempts": typed("integer"), "max_attempts": typed("integer"),
	"lease_expires_at": schema{"type": []string{"string", "null"}, "format": "date-time"}, "lease_history": arrayOf(lease),
	"tool_calls": schema{}, "llm_calls_observed": typed("integer"), "llm_call_count_reported": nullable("integer"),
	"on_policy": nullable("boolean"), "exclusion": exclusion, "output": typed("object"),
	"gateway_calls_derived": arrayOf(typed("object")), "created_at": schema{"type": "string", "format": "date-time"},
	"finished_at":          schema{"type": []string{"string", "null"}, "format": "date-time"},
	"tool_call_emitted_by": schema{"type": "object", "additionalProperties": typed("string")},
})

var flylabExperiment = object([]string{"experiment_id", "session_id", "status", "workflow_id", "protocol_hash"}, schema{
	"experiment_id": typed("string"), "session_id": typed("string"), "status": typed("string"), "workflow_id": typed("string"),
	"hypothesis": schema{}, "protocol": schema{}, "effective_drives": schema{}, "timing": typed("object"), "seeds": schema{},
	"model_assumptions": schema{}, "model": schema{}, "protocol_hash": typed("string"), "seed_manifest_hash": typed("string"),
	"approval": schema{}, "decided_by": typed("string"), "reason": typed("string"),
})

// componentSchemas are the named schemas: the error envelope, the shared
// views, the FlyLab result envelope and every definition of the flywheel
// wire contract, taken from its embedded schema rather than re-typed.
func componentSchemas() (schema, error) {
	out := schema{"Error": errorEnvelope, "Credential": credential, "PingResult": pingResult, "BuildInfo": buildInfo,
		"Rollout": rollout, "FlyLabExperiment": flylabExperiment}
	env, err := flylabResultEnvelope()
	if err != nil {
		return nil, err
	}
	out["FlyLabToolResult"] = env
	defs, err := flywheelDefinitions()
	if err != nil {
		return nil, err
	}
	for name, def := range defs {
		if _, clash := out[name]; clash {
			return nil, fmt.Errorf("flywheel definition %s clashes with a component schema", name)
		}
		out[name] = def
	}
	return out, nil
}

// flywheelDefinitions returns the flywheel schema's $defs with their
// references pointed at #/components/schemas.
func flywheelDefinitions() (schema, error) {
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(contracts.FlywheelSchemaFile, &doc); err != nil {
		return nil, fmt.Errorf("flywheel schema: %w", err)
	}
	out := schema{}
	for name, raw := range doc.Defs {
		var def any
		if err := json.Unmarshal(raw, &def); err != nil {
			return nil, fmt.Errorf("flywheel schema %s: %w", name, err)
		}
		out[name] = localRefs(def)
	}
	return out, nil
}

// localRefs rewrites the flywheel schema's references ("#/$defs/X", with
// or without its $id in front) to the document's components.
func localRefs(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if s, ok := x.(string); ok && k == "$ref" {
				t[k] = componentRef(s)
				continue
			}
			t[k] = localRefs(x)
		}
	case []any:
		for i, x := range t {
			t[i] = localRefs(x)
		}
	}
	return v
}

func componentRef(ref string) string {
	local := strings.TrimPrefix(ref, contracts.FlywheelSchemaID)
	if name, ok := strings.CutPrefix(local, "#/$defs/"); ok {
		return "#/components/schemas/" + name
	}
	return ref
}

// flylabResultEnvelope builds the flylab.tool-result.v3 envelope from the
// embedded FlyLab contract: success answers carry its success_fields,
// failures its failure_fields and an error with failure_error_fields.
func flylabResultEnvelope() (schema, error) {
	var c struct {
		Result struct {
			Version string   `json:"schema_version"`
			Success []string `json:"success_fields"`
			Failure []string `json:"failure_fields"`
			Error   []string `json:"failure_error_fields"`
		} `json:"result_contract"`
	}
	if err := json.Unmarshal(contracts.FlyLabContractFile, &c); err != nil {
		return nil, fmt.Errorf("flylab contract: %w", err)
	}
	r := c.Result
	if r.Version == "" || len(r.Success) == 0 || len(r.Failure) == 0 {
		return nil, fmt.Errorf("flylab contract: result_contract incomplete")
	}
	return schema{
		"type": "object", "required": []string{"ok", "result_version", "tool"},
		"properties": schema{"ok": typed("boolean"), "result_version": schema{"const": r.Version}, "tool": typed("string"),
			"error": object(r.Error, schema{"code": typed("string"), "message": typed("string"), "retryable": typed("boolean")})},
		"if":   schema{"properties": schema{"ok": schema{"const": true}}},
		"then": schema{"required": r.Success},
		"else": schema{"required": r.Failure},
	}, nil
}
