package flywheel

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTurns_ValuesTheStoreCannotHoldAre422WithThePointerAndTheRestIsStored
// runs on PostgreSQL too, where each of these used to fail the insert with
// a retryable 503 forever.
func TestTurns_ValuesTheStoreCannotHoldAre422WithThePointerAndTheRestIsStored(t *testing.T) {
	eachTestEnv(t, Options{}, func(t *testing.T, e *testEnv) {
		long := "2026-01-01T00:00:00." + strings.Repeat("1", 60) + "Z"
		body := `{"agent_id":"pg","turns":[` +
			`{"turn_id":"ok","input_text":"fine","final_text":"ok","tool_calls":[],"tool_calls_omitted_count":0},` +
			`{"turn_id":"nul","input_text":"a\u0000b","final_text":"ok","tool_calls":[],"tool_calls_omitted_count":0},` +
			`{"turn_id":"utf8","input_text":"x","final_text":"ok","tool_calls":[{"name":"bad` + "\xff\xfe" + `","outcome":"ok","status_code":200}],"tool_calls_omitted_count":0},` +
			`{"turn_id":"long","input_text":"x","final_text":"ok","tool_calls":[],"tool_calls_omitted_count":0,"occurred_at":"` + long + `"}` +
			`]}`
		r := e.do(http.MethodPost, "/flywheel/turns", e.agentKey, []byte(body))
		if r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("want 422, got %d %s", r.Status, r.Body)
		}
		for _, p := range []string{"/turns/1/input_text", "/turns/2/tool_calls", "/turns/3/occurred_at"} {
			if !hasViolationAt(t, r, p) {
				t.Fatalf("422 must name %s: %s", p, r.Body)
			}
		}
		var counts struct{ Accepted int }
		r.decode(t, &counts)
		if counts.Accepted != 1 {
			t.Fatalf("the storable turn is stored: %s", r.Body)
		}
		if r := e.do(http.MethodGet, "/operator/v1/turns/pg/ok", e.opToken, nil); r.Status != http.StatusOK {
			t.Fatalf("stored turn: %d %s", r.Status, r.Body)
		}
		if r := e.do(http.MethodGet, "/operator/v1/turns/pg/nul", e.opToken, nil); r.Status != http.StatusNotFound {
			t.Fatalf("refused turn: %d %s", r.Status, r.Body)
		}
	})
}

func TestOutput_AValueTheStoreCannotHoldIs422AndChangesNothing(t *testing.T) {
	eachTestEnv(t, Options{}, func(t *testing.T, e *testEnv) {
		g := e.lease(time.Hour)
		if r := e.output(g, `{"final_text":"a\u0000b"}`); r.Status != http.StatusUnprocessableEntity || !hasViolationAt(t, r, "/final_text") {
			t.Fatalf("NUL in final_text: %d %s", r.Status, r.Body)
		}
		if r := e.output(g, `{"final_text":"x","events":[{"k":"`+"\xff"+`"}]}`); r.Status != http.StatusUnprocessableEntity || !hasViolationAt(t, r, "/events") {
			t.Fatalf("invalid UTF-8 in events: %d %s", r.Status, r.Body)
		}
		if r := e.output(g, `{"final_text":"fine"}`); r.Status != http.StatusOK {
			t.Fatalf("a refused output stores nothing, so the next one lands: %d %s", r.Status, r.Body)
		}
	})
}

func TestLeaseAndEnqueue_AnIDOrInputTheStoreCannotHoldIsAnsweredNot503(t *testing.T) {
	eachTestEnv(t, Options{}, func(t *testing.T, e *testEnv) {
		g := e.lease(time.Hour)
		if r := e.do(http.MethodPost, "/flywheel/rollouts/ro_%00x/heartbeat", g.APIKey, nil, LeaseTokenHeader, g.LeaseToken); r.Status != http.StatusNotFound {
			t.Fatalf("a NUL in the rollout id: %d %s", r.Status, r.Body)
		}
		r := e.do(http.MethodPost, "/operator/v1/rollouts", e.opToken, []byte(`{"rollouts":[{"turn_input":"a\u0000b"}]}`))
		if r.Status != http.StatusUnprocessableEntity || detailPath(t, r) != "/rollouts/0/turn_input" {
			t.Fatalf("a NUL in turn_input: %d %s", r.Status, r.Body)
		}
	})
}
