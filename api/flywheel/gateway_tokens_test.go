package flywheel

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/gatehouse/gatehouse/internal/telemetry"
	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
)

// The gateway counts the tokens the upstream reports in a completion's
// usage, from a JSON body and from a stream's final usage chunk, into
// gatehouse_llm_gateway_tokens_total. Not parallel: the counter is shared.
func TestGateway_CountsTheUpstreamsReportedTokens(t *testing.T) {
	tokens := func(kind string) float64 {
		return testutil.ToFloat64(telemetry.LLMGatewayTokens.WithLabelValues("/chat/completions", kind))
	}
	prompt0, completion0 := tokens("prompt"), tokens("completion")
	for _, tc := range []struct {
		name, body         string
		prompt, completion float64
	}{
		{"json", `{"choices":[{"message":{"role":"assistant","content":"hi"}}],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}`, 12, 5},
		{"stream", "data: {\"choices\":[{\"delta\":{\"content\":\"h\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":30,\"completion_tokens\":7}}\n\ndata: [DONE]\n\n", 30, 7},
		{"no usage", `{"choices":[]}`, 0, 0},
	} {
		e := newTestEnv(t, Options{Upstream: "http://upstream.test/v1", UpstreamClient: okUpstream(tc.body), Now: time.Now})
		if _, _, err := fwmodels.Enqueue(context.Background(), e.db, fwmodels.NewRollout{ID: fwmodels.NewRolloutID(), TurnInput: "x", DeadlineAt: time.Now().Add(time.Hour), MaxAttempts: 1}); err != nil {
			t.Fatal(err)
		}
		gs, err := fwmodels.Claim(context.Background(), e.db, fwmodels.Claimant{CredentialID: "c", AllProjects: true}, 1, time.Minute, time.Now())
		if err != nil || len(gs) != 1 {
			t.Fatalf("%s: claim %v %d", tc.name, err, len(gs))
		}
		if r := e.complete(gs[0], `{"model":"m","messages":[]}`); r.Status != 200 {
			t.Fatalf("%s: %d %s", tc.name, r.Status, r.Body)
		}
		if p, c := tokens("prompt")-prompt0, tokens("completion")-completion0; p != tc.prompt || c != tc.completion {
			t.Errorf("%s: counted prompt %v completion %v, want %v %v", tc.name, p, c, tc.prompt, tc.completion)
		}
		prompt0, completion0 = tokens("prompt"), tokens("completion")
	}
}
