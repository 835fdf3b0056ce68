package flywheel

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
)

// TestGetRollout_LeaseHistoryNamesNoSecretsFingerprint: an operator reads
// each lease under the documented snake_case names, and nothing derived
// from the lease's api key or llm_url token (their hashes, their locator)
// leaves the database.
func TestGetRollout_LeaseHistoryNamesNoSecretsFingerprint(t *testing.T) {
	t.Parallel()
	eachTestEnv(t, Options{}, func(t *testing.T, e *testEnv) {
		g := e.lease(time.Hour)
		if r := e.do(http.MethodPost, "/flywheel/rollouts/"+g.Rollout.ID+"/heartbeat", g.APIKey, nil, LeaseTokenHeader, g.LeaseToken); r.Status != 200 {
			t.Fatalf("heartbeat: %d %s", r.Status, r.Body)
		}
		r := e.do(http.MethodGet, "/operator/v1/rollouts/"+g.Rollout.ID, e.opToken, nil)
		if r.Status != 200 {
			t.Fatalf("read: %d %s", r.Status, r.Body)
		}
		var v struct {
			LeaseHistory []map[string]json.RawMessage `json:"lease_history"`
		}
		r.decode(t, &v)
		if len(v.LeaseHistory) != 1 {
			t.Fatalf("lease_history %s", r.Body)
		}
		var keys []string
		for k := range v.LeaseHistory[0] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := []string{"claimed_by", "ended_at", "end_reason", "epoch", "expires_at", "granted_at", "heartbeats", "llm_calls"}
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Fatalf("lease fields %v, want %v", keys, want)
		}
		if string(v.LeaseHistory[0]["epoch"]) != "1" || string(v.LeaseHistory[0]["heartbeats"]) != "1" {
			t.Fatalf("lease %s", r.Body)
		}
		hist, err := fwmodels.LeaseHistory(t.Context(), e.db, g.Rollout.ID)
		if err != nil || len(hist) != 1 {
			t.Fatalf("history: %v %d", err, len(hist))
		}
		for name, secret := range map[string]string{"api key hash": hist[0].APIKeyHash, "llm token hash": hist[0].LLMTokenHash, "locator": hist[0].Locator} {
			if secret != "" && strings.Contains(string(r.Body), secret) {
				t.Errorf("the operator's read carries the lease's %s", name)
			}
		}
	})
}
