package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/models"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// TestFlyLab_DroppedRESTSaveBeforeItsCommitPublishesNothing drops a REST
// save_fly_evidence while the session cannot commit it (its only worker
// is gone, so the Update waits), then brings a worker back: the call
// aborts, the revision stays, no bundle is published, and saving again
// with the same operation_id publishes it once.
func TestFlyLab_DroppedRESTSaveBeforeItsCommitPublishesNothing(t *testing.T) {
	s, dbURL := workerlessStack(t)
	first := StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	db, err := models.Open(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	c := loadFlyContract(t)
	call := func(tool string, args any) map[string]any { return flyTool(t, s, c, s.APIKey, tool, args) }
	sid, hyp, draftRev := draftMDNHypothesis(t, call)
	exp := mustOK(t, call("design_stimulation_trial", designArgs(sid, draftRev, hyp, 3)))["experiment"].(map[string]any)
	expID, hash := exp["id"].(string), exp["protocolHash"].(string)
	if r := s.Do(t, http.MethodPost, "/operator/v1/flylab/experiments/"+expID+"/approve", s.OperatorToken,
		map[string]any{"protocol_hash": hash}); r.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	ran := call(wf.ToolRun, map[string]any{"page_session_id": sid, "expected_state_revision": call(wf.ToolInspect, nil)["state_revision"],
		"experiment_id": expID, "approved_protocol_hash": hash, "operation_id": "run-save-cancel"})
	batch := mustOK(t, ran)["id"]
	analyzed := call(wf.ToolAnalyze, map[string]any{"page_session_id": sid, "expected_state_revision": ran["state_revision"],
		"batch_id": batch, "metrics": mdnPanel})
	an := mustOK(t, analyzed)["analysis"].(map[string]any)["id"]
	compared := call(wf.ToolCompare, map[string]any{"page_session_id": sid, "expected_state_revision": analyzed["state_revision"],
		"analysis_ids": []any{an}, "objective_metric": "backward_distance_mm", "objective": "maximize"})
	save := map[string]any{"page_session_id": sid, "expected_state_revision": compared["state_revision"], "scope": "experiment",
		"hypothesis_id": hyp, "experiment_id": expID, "batch_ids": []any{batch}, "analysis_ids": []any{an},
		"comparison_id": mustOK(t, compared)["comparison"].(map[string]any)["id"], "operation_id": "save-cancel"}

	first.Kill()
	ctx, cancel := context.WithCancel(context.Background())
	dropped := make(chan error, 1)
	go func() { dropped <- postTool(ctx, s.APIURL, s.APIKey, wf.ToolSave, save) }()
	time.Sleep(time.Second) // the api has sent the Update; no worker can run it
	cancel()
	if err := <-dropped; err == nil {
		t.Fatal("the dropped save answered")
	}
	tc := s.Client(t)
	for deadline := time.Now().Add(30 * time.Second); !signalled(t, tc, sid, wf.CancelSignal); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the dropped save's cancel never reached the session")
		}
	}
	StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	settled := settledState(t, call)
	if settled["state_revision"] != compared["state_revision"] ||
		settled["data"].(map[string]any)["agent_context"].(map[string]any)["artifacts"].(map[string]any)["evidence_bundle_id"] != nil {
		t.Fatalf("a save dropped before its commit changed the session: revision %v (was %v)", settled["state_revision"], compared["state_revision"])
	}
	if n := publishedRows(t, db, &flymodels.EvidenceBundle{}, sid); n != 0 {
		t.Fatalf("%d bundles published by a dropped save", n)
	}
	mustOK(t, call(wf.ToolSave, save))
	if n := publishedRows(t, db, &flymodels.EvidenceBundle{}, sid); n != 1 {
		t.Fatalf("saving again published %d bundles, want 1", n)
	}
}
