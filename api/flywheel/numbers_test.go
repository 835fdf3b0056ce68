package flywheel

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

func TestSchemaInt_AcceptsEveryIntegerTheSchemaAccepts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"100", 100, true}, {"1e2", 100, true}, {"1E2", 100, true}, {"3.0", 3, true}, {"30e-1", 3, true}, {"-0.0", 0, true},
		{"9223372036854775807", 9223372036854775807, true}, {"9.223372036854775807e18", 9223372036854775807, true},
		{"9223372036854775808", 0, false}, {"1e19", 0, false}, {"1e999999999", 0, false}, {"2.5", 0, false},
	} {
		got, err := schemaInt(json.Number(c.in))
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("%s: %d %v, want %d ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestIntake_IntegersWrittenAs1e2Or3Point0AreAccepted(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	r := e.do(http.MethodPost, "/flywheel/turns", e.agentKey, []byte(turnBody("nums", map[string]any{"turn_index": json.Number("1e2"), "tool_calls_omitted_count": json.Number("3.0")})))
	if r.Status != http.StatusAccepted {
		t.Fatalf("turn with 1e2 / 3.0: %d %s", r.Status, r.Body)
	}
	var turn struct {
		TurnIndex int64 `json:"turn_index"`
		Omitted   int64 `json:"tool_calls_omitted_count"`
	}
	e.do(http.MethodGet, "/operator/v1/turns/nums/t1", e.opToken, nil).decode(t, &turn)
	if turn.TurnIndex != 100 || turn.Omitted != 3 {
		t.Fatalf("stored %+v", turn)
	}
	g := e.lease(time.Hour)
	if r := e.output(g, `{"final_text":"x","tool_calls":[],"llm_call_count":0.0,"tool_calls_omitted_count":0e5}`); r.Status != http.StatusOK {
		t.Fatalf("output with 0.0 / 0e5: %d %s", r.Status, r.Body)
	}
	if r := e.do(http.MethodPost, "/flywheel/turns", e.agentKey, []byte(turnBody("nums", map[string]any{"turn_id": "big", "turn_index": json.Number("1e19")}))); r.Status != http.StatusUnprocessableEntity || !hasViolationAt(t, r, "/turns/0/turn_index") {
		t.Fatalf("beyond 64 bits: %d %s", r.Status, r.Body)
	}
}
