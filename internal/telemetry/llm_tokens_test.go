package telemetry

import "testing"

func TestCompletionUsage_JSONStreamAndNonsense(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		want       llmUsage
		ok         bool
	}{
		{"json", `{"usage":{"prompt_tokens":3,"completion_tokens":4}}`, llmUsage{3, 4}, true},
		{"stream takes the last usage", "data: {\"usage\":null}\n\ndata: {\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1}}\n\ndata: [DONE]\n", llmUsage{9, 1}, true},
		{"none", `{"choices":[]}`, llmUsage{}, false},
		{"negative", `{"usage":{"prompt_tokens":-3,"completion_tokens":4}}`, llmUsage{}, false},
		{"absurd", `{"usage":{"prompt_tokens":1e300,"completion_tokens":4}}`, llmUsage{}, false},
		{"garbage", `data: {not json`, llmUsage{}, false},
	}
	for _, tc := range cases {
		got, ok := completionUsage([]byte(tc.body))
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
