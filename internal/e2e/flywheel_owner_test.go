package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/runner"
)

// mintScoped mints an agent key limited to projects and returns its
// plaintext and credential id.
func mintScoped(t *testing.T, s *Stack, name string, projects ...string) (string, string) {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/operator/v1/keys", s.OperatorToken, map[string]any{"role": "agent", "name": name, "projects": projects})
	var m struct {
		ID        string `json:"id"`
		Plaintext string `json:"plaintext"`
	}
	r.JSON(t, &m)
	if r.Status != http.StatusCreated || m.Plaintext == "" {
		t.Fatalf("mint %s: %d %s", name, r.Status, r.Body)
	}
	return m.Plaintext, m.ID
}

func enqueueOwnedBy(t *testing.T, s *Stack, input string, owner map[string]any) string {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/operator/v1/rollouts", s.OperatorToken, map[string]any{"rollouts": []any{
		map[string]any{"turn_input": input, "deadline_s": 120, "owner": owner}}})
	var out struct {
		RolloutIDs []string `json:"rollout_ids"`
	}
	r.JSON(t, &out)
	if r.Status != http.StatusCreated || len(out.RolloutIDs) != 1 {
		t.Fatalf("enqueue: %d %s", r.Status, r.Body)
	}
	return out.RolloutIDs[0]
}

// TestFlywheel_TwoKeysOwnersScopeClaimsAndTurns: a key limited to one
// project claims only that project's rollout, never another tenant's; and
// a key that posts a turn id first does not drop another key's turn.
func TestFlywheel_TwoKeysOwnersScopeClaimsAndTurns(t *testing.T) {
	s := StartStack(t, StackOptions{})
	keyP, _ := mintScoped(t, s, "project key", "proj-a")
	keyT, credT := mintScoped(t, s, "tenant key")
	forP := enqueueOwnedBy(t, s, "project work", map[string]any{"project": "proj-a"})
	forT := enqueueOwnedBy(t, s, "tenant work", map[string]any{"key": credT})

	claim := func(key string) []string {
		var c claimed
		r := s.Do(t, http.MethodPost, "/flywheel/claim", key, map[string]any{"max_rollouts": 8, "lease_s": 30})
		r.JSON(t, &c)
		if r.Status != http.StatusOK {
			t.Fatalf("claim: %d %s", r.Status, r.Body)
		}
		var ids []string
		for _, ro := range c.Rollouts {
			ids = append(ids, ro.RolloutID)
		}
		return ids
	}
	if got := claim(keyP); len(got) != 1 || got[0] != forP {
		t.Fatalf("the project key claimed %v, want only %s", got, forP)
	}
	if got := claim(keyT); len(got) != 1 || got[0] != forT {
		t.Fatalf("the tenant key claimed %v, want only %s", got, forT)
	}

	turn := func(key, final string) Response {
		return s.Do(t, http.MethodPost, "/flywheel/turns", key, map[string]any{"agent_id": "shared-agent", "turns": []any{map[string]any{
			"turn_id": "turn-1", "input_text": "hi", "final_text": final, "tool_calls": []any{}, "tool_calls_omitted_count": 0}}})
	}
	if r := turn(keyT, "planted"); r.Status != http.StatusAccepted {
		t.Fatalf("first key: %d %s", r.Status, r.Body)
	}
	var counts struct{ Accepted, Duplicates int }
	r := turn(keyP, "real")
	r.JSON(t, &counts)
	if r.Status != http.StatusAccepted || counts.Accepted != 1 {
		t.Fatalf("the second key's own turn was dropped: %d %s", r.Status, r.Body)
	}
	if r := turn(keyP, "rewritten"); r.Status != http.StatusConflict {
		t.Fatalf("a different body under the same turn_id: %d %s", r.Status, r.Body)
	}
}

// TestFlywheel_RunnerRolloutIsOnPolicy: the runner's agent calls its LLM
// through the runner's proxy; the runner reports the count it made, which
// the gateway's own count confirms.
func TestFlywheel_RunnerRolloutIsOnPolicy(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("needs curl for the shell agent")
	}
	up := httptest.NewServer(&fakeLLM{})
	defer up.Close()
	s := StartStack(t, StackOptions{Env: map[string]string{"GATEHOUSE_LLM_UPSTREAM_URL": up.URL + "/v1"}})
	id := enqueueOne(t, s, "call twice")
	script := `for i in 1 2; do curl -sf -H "Authorization: Bearer $OPENAI_API_KEY" -H 'Content-Type: application/json' ` +
		`-d '{"model":"m","messages":[{"role":"user","content":"hi"}]}' "$OPENAI_BASE_URL/chat/completions" >/dev/null || exit 1; done; echo ok`
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := runner.Run(ctx, runner.Options{Server: s.APIURL, AgentKey: s.APIKey, Command: []string{"sh", "-c", script},
		WorkDir: t.TempDir(), MaxRollouts: 1, LeaseS: 30}); err != nil {
		t.Fatal(err)
	}
	rec := waitRollout(t, s, id, func(r rolloutRecord) bool { return r.Output != nil })
	if rec.LLMCallsObserved != 2 || rec.LLMCallCountReported == nil || *rec.LLMCallCountReported != 2 || rec.OnPolicy == nil || !*rec.OnPolicy {
		t.Fatalf("runner rollout: observed %d reported %v on_policy %v (%+v)", rec.LLMCallsObserved, rec.LLMCallCountReported, rec.OnPolicy, rec.Output)
	}
}
