package e2e

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestFault_LeaseRaceOnlyCurrentTokenCounts lets agent A's one-second lease
// on a rollout expire, has agent B claim it with the next token, then races
// both agents' heartbeats and outputs: every call with A's stale token is
// fenced with 409, B's are accepted, and the stored output is B's.
func TestFault_LeaseRaceOnlyCurrentTokenCounts(t *testing.T) {
	dbURL := modelstest.SchemaURL(t)
	if dbURL == "" {
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	s := StartStack(t, StackOptions{Env: map[string]string{"GATEHOUSE_DATABASE_URL": dbURL, "GATEHOUSE_FLYWHEEL_LEASE_MIN": "1s"}})
	keyB := mintAgentKey(t, s, "agent-b", false)
	id := enqueueOne(t, s, "contested")

	var a, b claimed
	s.Do(t, http.MethodPost, "/flywheel/claim", s.APIKey, map[string]any{"max_rollouts": 1, "lease_s": 1}).JSON(t, &a)
	if len(a.Rollouts) != 1 || a.Rollouts[0].RolloutID != id {
		t.Fatalf("agent A claim: %+v", a)
	}
	waitRollout(t, s, id, func(r rolloutRecord) bool { return r.Status == "queued" && r.Attempts == 1 })
	s.Do(t, http.MethodPost, "/flywheel/claim", keyB, map[string]any{"max_rollouts": 1, "lease_s": 60}).JSON(t, &b)
	if len(b.Rollouts) != 1 || b.Rollouts[0].RolloutID != id || b.Rollouts[0].LeaseToken == a.Rollouts[0].LeaseToken {
		t.Fatalf("agent B claim must get the rollout with a new token: %+v", b)
	}
	stale, current := a.Rollouts[0], b.Rollouts[0]

	// Both agents heartbeat at once, 20 times each.
	const beats = 20
	codes := make(chan [2]int, 2*beats)
	var wg sync.WaitGroup
	for range beats {
		for who, ro := range map[int]struct{ key, token string }{0: {stale.APIKey, stale.LeaseToken}, 1: {current.APIKey, current.LeaseToken}} {
			wg.Go(func() {
				r, err := postLeased(s.APIURL+"/flywheel/rollouts/"+id+"/heartbeat", ro.key, ro.token, map[string]any{})
				if err != nil {
					codes <- [2]int{who, -1}
					return
				}
				codes <- [2]int{who, r.Status}
			})
		}
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		if want := map[int]int{0: http.StatusConflict, 1: http.StatusOK}[c[0]]; c[1] != want {
			t.Fatalf("heartbeat by agent %c answered %d, want %d", "AB"[c[0]], c[1], want)
		}
	}

	// The stale holder's output is refused before and after the current
	// holder's output is accepted; the stored output is the current one.
	out := func(ro struct{ key, token string }, text string) int {
		r, err := postLeased(s.APIURL+"/flywheel/rollouts/"+id+"/output", ro.key, ro.token,
			map[string]any{"final_text": text, "tool_calls": []any{}, "llm_call_count": 0})
		if err != nil {
			t.Fatal(err)
		}
		return r.Status
	}
	staleHolder := struct{ key, token string }{stale.APIKey, stale.LeaseToken}
	currentHolder := struct{ key, token string }{current.APIKey, current.LeaseToken}
	if st := out(staleHolder, "from A"); st != http.StatusConflict {
		t.Fatalf("stale output before: %d", st)
	}
	if st := out(currentHolder, "from B"); st != http.StatusOK {
		t.Fatalf("current output: %d", st)
	}
	if st := out(staleHolder, "from A"); st != http.StatusConflict && st != http.StatusGone {
		t.Fatalf("stale output after: %d", st)
	}
	rec := waitRollout(t, s, id, func(r rolloutRecord) bool { return r.Status == "completed" })
	if rec.Output == nil || rec.Output.FinalText != "from B" || rec.Attempts != 2 {
		t.Fatalf("record: attempts %d output %+v", rec.Attempts, rec.Output)
	}
}

// postLeased posts body with a rollout key and its lease token.
func postLeased(url, key, token string, body any) (Response, error) {
	return postWith(url, key, body, 30*time.Second, "Flywheel-Lease-Token", token)
}
