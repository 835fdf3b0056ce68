package api

import (
	"encoding/json"
	"net/http"
	"testing"
)

// With Temporal down, an operator enqueue answers a retryable 503
// (Retry-After and details.retryable, as every 503 does) naming the retry
// that is safe: the same Idempotency-Key.
func TestOperatorEnqueue_TemporalDownIsARetryable503(t *testing.T) {
	fs := newDownTemporalFuzzServer(t)
	h := http.Header{}
	h.Set("Idempotency-Key", "enqueue-once")
	rec := fs.post("/operator/v1/rollouts", fs.creds.operator, []byte(`{"rollouts":[{"turn_input":"hello"}]}`), h)
	var body struct {
		Error struct {
			Code    string         `json:"code"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" || body.Error.Code != "temporal_unavailable" ||
		body.Error.Details["retryable"] != true {
		t.Fatalf("enqueue with Temporal down: %d %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body.String())
	}
}
