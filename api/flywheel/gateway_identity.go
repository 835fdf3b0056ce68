package flywheel

import (
	"encoding/json"
	"sort"

	"github.com/gatehouse/gatehouse/internal/telemetry"
	models "github.com/gatehouse/gatehouse/models/flywheel"
)

// samplingKeys are the request fields that change what the model samples;
// recorded per call as the server-derived sampling parameters.
var samplingKeys = []string{
	"temperature", "top_p", "top_k", "max_tokens", "max_completion_tokens", "n", "seed", "stop",
	"presence_penalty", "frequency_penalty", "logit_bias", "logprobs", "top_logprobs", "response_format",
	"tool_choice", "parallel_tool_calls", "reasoning_effort",
}

// wireIdentity is what a request says about the scaffold: the server-
// derived half of agent_fingerprint, computed from the observed wire and
// never accepted from the agent.
type wireIdentity struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	Messages json.RawMessage `json:"messages"`
	Prompt   json.RawMessage `json:"prompt"`
	Input    json.RawMessage `json:"input"`
	Tools    json.RawMessage `json:"tools"`
	Funcs    json.RawMessage `json:"functions"`
}

// deriveIdentity fills the call's rendered-prompt digest (the canonical
// messages, prompt or input), tool-schema digest (tools, or the legacy
// functions), sampling parameters and the tool_call_ids whose results the
// request carries (role "tool" messages: the join back to the completion
// that emitted each). Best effort: the upstream judges the body.
func deriveIdentity(call *models.GatewayCall, body []byte) {
	var w wireIdentity
	if json.Unmarshal(body, &w) != nil {
		return
	}
	if len(w.Model) > 200 {
		w.Model = w.Model[:200]
	}
	call.Model, call.Stream = w.Model, w.Stream
	for _, prompt := range []json.RawMessage{w.Messages, w.Prompt, w.Input} {
		if len(prompt) > 0 && string(prompt) != "null" {
			call.PromptSHA256 = canonicalSHA256(prompt)
			break
		}
	}
	for _, tools := range []json.RawMessage{w.Tools, w.Funcs} {
		if len(tools) > 0 && string(tools) != "null" {
			call.ToolsSHA256 = canonicalSHA256(tools)
			break
		}
	}
	var all map[string]json.RawMessage
	if json.Unmarshal(body, &all) == nil {
		sampling := map[string]json.RawMessage{}
		for _, k := range samplingKeys {
			if v, ok := all[k]; ok {
				sampling[k] = v
			}
		}
		if b, err := json.Marshal(sampling); err == nil {
			s := string(b)
			call.Sampling = &s
		}
	}
	var msgs []struct {
		Role       string `json:"role"`
		ToolCallID string `json:"tool_call_id"`
	}
	if json.Unmarshal(w.Messages, &msgs) == nil {
		var ids []string
		for _, m := range msgs {
			if m.Role == "tool" && m.ToolCallID != "" {
				ids = append(ids, m.ToolCallID)
			}
		}
		call.ToolResultIDs = jsonList(ids)
	}
}

// emittedToolCallIDs reads the tool_calls[].id a completion emitted, from
// a JSON body or a server-sent event stream (choices[].delta.tool_calls).
func emittedToolCallIDs(body []byte) *string {
	type choice struct {
		Message struct {
			ToolCalls []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"message"`
		Delta struct {
			ToolCalls []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"delta"`
	}
	chunks := telemetry.CompletionDocuments(body)
	seen := map[string]bool{}
	var ids []string
	for _, c := range chunks {
		var resp struct {
			Choices []choice `json:"choices"`
		}
		if json.Unmarshal(c, &resp) != nil {
			continue
		}
		for _, ch := range resp.Choices {
			for _, tc := range append(ch.Message.ToolCalls, ch.Delta.ToolCalls...) {
				if tc.ID != "" && !seen[tc.ID] {
					seen[tc.ID] = true
					ids = append(ids, tc.ID)
				}
			}
		}
	}
	return jsonList(ids)
}

// jsonList stores ids as a JSON array ([] when none, so "none" and "not
// observed" stay apart from NULL).
func jsonList(ids []string) *string {
	if ids == nil {
		ids = []string{}
	}
	b, _ := json.Marshal(ids)
	s := string(b)
	return &s
}

// toolCallLanded maps each reported tool call's outcome to the contract's
// tri-state (ok → true, failed → false, unknown → null), stored beside the
// record as received; nil when tool_calls is null (not reported).
func toolCallLanded(toolCalls *string) *string {
	if toolCalls == nil {
		return nil
	}
	var calls []struct {
		Outcome string `json:"outcome"`
	}
	if json.Unmarshal([]byte(*toolCalls), &calls) != nil {
		return nil
	}
	out := make([]*bool, len(calls))
	for i, c := range calls {
		switch c.Outcome {
		case "ok":
			v := true
			out[i] = &v
		case "failed":
			v := false
			out[i] = &v
		}
	}
	b, _ := json.Marshal(out)
	s := string(b)
	return &s
}

// attributeToolCalls joins each reported tool_call_id to the gateway call
// that emitted it: the completion whose response named it, or else the
// last completion before the first request that carried its result.
func attributeToolCalls(toolCalls *string, calls []models.GatewayCall) map[string]string {
	if toolCalls == nil {
		return nil
	}
	var reported []struct {
		ToolCallID *string `json:"tool_call_id"`
	}
	if json.Unmarshal([]byte(*toolCalls), &reported) != nil {
		return nil
	}
	out := map[string]string{}
	for _, r := range reported {
		if r.ToolCallID == nil || *r.ToolCallID == "" {
			continue
		}
		id := *r.ToolCallID
		if c := emittedBy(id, calls); c != "" {
			out[id] = c
		}
	}
	return out
}

func emittedBy(id string, calls []models.GatewayCall) string {
	sorted := append([]models.GatewayCall(nil), calls...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].StartedAt.Before(sorted[j].StartedAt) })
	for _, c := range sorted {
		if listHas(c.EmittedToolCallIDs, id) {
			return c.ID
		}
	}
	prev := ""
	for _, c := range sorted {
		if listHas(c.ToolResultIDs, id) {
			return prev
		}
		if c.Completion {
			prev = c.ID
		}
	}
	return ""
}

func listHas(list *string, id string) bool {
	if list == nil {
		return false
	}
	var ids []string
	if json.Unmarshal([]byte(*list), &ids) != nil {
		return false
	}
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
