package telemetry

import (
	"encoding/json"

	"github.com/prometheus/client_golang/prometheus"
)

// LLMGatewayTokens counts the tokens the LLM upstream reported in the
// usage of the completions the flywheel gateway proxied, by endpoint and
// kind (prompt, completion). Every registry New builds exports it.
var LLMGatewayTokens = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "gatehouse_llm_gateway_tokens_total",
	Help: "Tokens the LLM upstream reported in completions' usage, by endpoint and kind (prompt, completion).",
}, []string{"endpoint", "kind"})

// llmUsage is the OpenAI-compatible usage object.
type llmUsage struct {
	PromptTokens     float64 `json:"prompt_tokens"`
	CompletionTokens float64 `json:"completion_tokens"`
}

// CountLLMTokens adds the usage of one whole completion response body to
// LLMGatewayTokens: a JSON body's usage, or for a server-sent event stream
// the last chunk that carries one (stream_options.include_usage). A body
// without usage, or with negative or absurd counts, adds nothing.
func CountLLMTokens(endpoint string, body []byte) {
	u, ok := completionUsage(body)
	if !ok {
		return
	}
	LLMGatewayTokens.WithLabelValues(endpoint, "prompt").Add(u.PromptTokens)
	LLMGatewayTokens.WithLabelValues(endpoint, "completion").Add(u.CompletionTokens)
}

// maxReportedTokens bounds one response's counts, so an upstream (or a
// test double) that reports nonsense cannot make the counters jump.
const maxReportedTokens = 1 << 30

func completionUsage(body []byte) (llmUsage, bool) {
	chunks := CompletionDocuments(body)
	for i := len(chunks) - 1; i >= 0; i-- {
		var c struct {
			Usage *llmUsage `json:"usage"`
		}
		if json.Unmarshal(chunks[i], &c) != nil || c.Usage == nil {
			continue
		}
		u := *c.Usage
		if u.PromptTokens < 0 || u.CompletionTokens < 0 || u.PromptTokens > maxReportedTokens || u.CompletionTokens > maxReportedTokens {
			return llmUsage{}, false
		}
		return u, true
	}
	return llmUsage{}, false
}
