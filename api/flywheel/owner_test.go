package flywheel

import (
	"encoding/json"
	"net/http"
	"testing"
)

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// detailPath reads the path of an operator error's details object.
func detailPath(t *testing.T, r result) string {
	t.Helper()
	var body struct {
		Error struct {
			Details struct {
				Path string `json:"path"`
			} `json:"details"`
		} `json:"error"`
	}
	r.decode(t, &body)
	return body.Error.Details.Path
}

// enqueueOwned enqueues one rollout through the operator API with owner
// (nil: none) and returns its id.
func (e *testEnv) enqueueOwned(t *testing.T, input string, owner map[string]any) string {
	t.Helper()
	item := map[string]any{"turn_input": input}
	if owner != nil {
		item["owner"] = owner
	}
	r := e.do(http.MethodPost, "/operator/v1/rollouts", e.opToken, mustJSON(t, map[string]any{"rollouts": []any{item}}))
	var out struct {
		RolloutIDs []string `json:"rollout_ids"`
	}
	r.decode(t, &out)
	if r.Status != http.StatusCreated || len(out.RolloutIDs) != 1 {
		t.Fatalf("enqueue: %d %s", r.Status, r.Body)
	}
	return out.RolloutIDs[0]
}

func (e *testEnv) claimAll(t *testing.T, key string) []string {
	t.Helper()
	r := e.do(http.MethodPost, "/flywheel/claim", key, []byte(`{"max_rollouts": 64}`))
	var out struct {
		Rollouts []struct {
			RolloutID string `json:"rollout_id"`
		} `json:"rollouts"`
	}
	r.decode(t, &out)
	if r.Status != http.StatusOK {
		t.Fatalf("claim: %d %s", r.Status, r.Body)
	}
	var ids []string
	for _, ro := range out.Rollouts {
		ids = append(ids, ro.RolloutID)
	}
	return ids
}

func TestClaim_TwoKeysEachTakeOnlyTheirOwnersRollouts(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	keyP1, _ := e.mintAgent("p1 only", "p1")
	keyT, credT := e.mintAgent("tenant")
	p1 := e.enqueueOwned(t, "for p1", map[string]any{"project": "p1"})
	p2 := e.enqueueOwned(t, "for p2", map[string]any{"project": "p2"})
	tenant := e.enqueueOwned(t, "for the tenant", map[string]any{"key": credT})
	open := e.enqueueOwned(t, "unscoped", nil)

	if got := e.claimAll(t, keyP1); len(got) != 1 || got[0] != p1 {
		t.Fatalf("the p1 key claimed %v, want only %s", got, p1)
	}
	got := e.claimAll(t, e.agentKey) // all projects: the project and unscoped rollouts, never another tenant's
	pair := len(got) == 2 && (got[0] == p2 && got[1] == open || got[0] == open && got[1] == p2)
	if !pair {
		t.Fatalf("the all-projects key claimed %v, want %s and %s", got, p2, open)
	}
	if got := e.claimAll(t, keyT); len(got) != 1 || got[0] != tenant {
		t.Fatalf("the tenant key claimed %v, want only %s", got, tenant)
	}
	if r := e.do(http.MethodPost, "/operator/v1/rollouts", e.opToken, []byte(`{"rollouts":[{"turn_input":"x","owner":{"key":"nope"}}]}`)); r.Status != http.StatusUnprocessableEntity || detailPath(t, r) != "/rollouts/0/owner/key" {
		t.Fatalf("an unknown owner key: %d %s", r.Status, r.Body)
	}
}

func TestTurns_AnotherKeyCannotPreemptATurnIDAndADifferentBodyIs409(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	keyA, credA := e.mintAgent("a")
	keyB, _ := e.mintAgent("b")
	post := func(key, final string) result {
		return e.do(http.MethodPost, "/flywheel/turns", key, []byte(turnBody("agent", map[string]any{"final_text": final})))
	}
	if r := post(keyB, "planted by B"); r.Status != http.StatusAccepted {
		t.Fatalf("B: %d %s", r.Status, r.Body)
	}
	var counts struct{ Accepted, Duplicates int }
	r := post(keyA, "A's real turn")
	r.decode(t, &counts)
	if r.Status != http.StatusAccepted || counts.Accepted != 1 {
		t.Fatalf("A's turn was dropped as B's duplicate: %d %s", r.Status, r.Body)
	}
	r = post(keyA, "A's real turn")
	r.decode(t, &counts)
	if r.Status != http.StatusAccepted || counts.Duplicates != 1 {
		t.Fatalf("a replay is a duplicate: %d %s", r.Status, r.Body)
	}
	r = post(keyA, "a different body")
	var conflict struct {
		Error struct {
			Code    string `json:"code"`
			Details []struct {
				TurnID         string `json:"turn_id"`
				StoredSHA256   string `json:"stored_sha256"`
				ReceivedSHA256 string `json:"received_sha256"`
			} `json:"details"`
		} `json:"error"`
	}
	r.decode(t, &conflict)
	if r.Status != http.StatusConflict || len(conflict.Error.Details) != 1 {
		t.Fatalf("a different body under a reused turn_id: %d %s", r.Status, r.Body)
	}
	d := conflict.Error.Details[0]
	if d.TurnID != "t1" || len(d.StoredSHA256) != 64 || len(d.ReceivedSHA256) != 64 || d.StoredSHA256 == d.ReceivedSHA256 {
		t.Fatalf("409 must name both hashes: %s", r.Body)
	}
	if r := e.do(http.MethodGet, "/operator/v1/turns/agent/t1", e.opToken, nil); r.Status != http.StatusConflict {
		t.Fatalf("two keys' t1 without ?owner=: %d %s", r.Status, r.Body)
	}
	r = e.do(http.MethodGet, "/operator/v1/turns/agent/t1?owner=key:"+credA, e.opToken, nil)
	var turn struct {
		FinalText string `json:"final_text"`
	}
	r.decode(t, &turn)
	if r.Status != http.StatusOK || turn.FinalText != "A's real turn" {
		t.Fatalf("A's stored turn: %d %s", r.Status, r.Body)
	}
}
