package flywheel

import (
	"net/http"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestHeartbeat_CommitsThroughTheHeartbeatPool proves heartbeats extend
// leases through Options.HeartbeatDB and nothing else does: with that
// pool gone, a heartbeat answers 503 while the same lease's output is
// still accepted through the main pool.
func TestHeartbeat_CommitsThroughTheHeartbeatPool(t *testing.T) {
	beats := modelstest.SQLite(t)
	conn, err := beats.DB()
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	e := newTestEnv(t, Options{HeartbeatDB: beats})
	g := e.lease(time.Minute)
	if r := e.do(http.MethodPost, "/flywheel/rollouts/"+g.Rollout.ID+"/heartbeat", g.APIKey, nil, LeaseTokenHeader, g.LeaseToken); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("heartbeat with its pool gone answered %d %s, want 503", r.Status, r.Body)
	}
	if r := e.output(g, `{"final_text":"done","tool_calls":[],"llm_call_count":0}`); r.Status != http.StatusOK && r.Status != http.StatusAccepted {
		t.Fatalf("output through the main pool answered %d %s", r.Status, r.Body)
	}
}
