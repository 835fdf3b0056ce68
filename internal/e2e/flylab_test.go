package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/contracts"
)

var (
	mdnPanel = []string{"backward_distance_mm", "signed_speed_mm_s", "response_latency_ms", "stance_stability", "leg_recruitment"}
	gfPanel  = []string{"short_mode_escape_probability", "response_latency_ms", "vertical_displacement_mm", "wing_recruitment", "leg_recruitment"}
)

func designArgs(sid string, rev any, hyp string, seed int) map[string]any {
	return map[string]any{"page_session_id": sid, "expected_state_revision": rev, "hypothesis_id": hyp,
		"target_circuit_id": "circuit_mdn_backward", "perturbation": "activate", "laterality": "bilateral",
		"activation_level": 0.8, "onset_ms": 500, "duration_ms": 1000, "trial_duration_ms": 3000, "replicates": 2,
		"include_baseline": true, "include_sham_control": true, "seed": seed}
}

// TestFlyLab_PipelineOverHTTP runs inspect → find → draft → design →
// operator approve → run → analyze → compare → save through the HTTP API
// and the embedded Temporal server, checking every envelope against the
// contract, the reachable error codes on the way, and the export against
// the published schema.
func TestFlyLab_PipelineOverHTTP(t *testing.T) {
	s := Shared(t)
	c := loadFlyContract(t)
	key := s.APIKey
	call := func(tool string, args any) map[string]any { return flyTool(t, s, c, key, tool, args) }

	insp := mustOK(t, call("inspect_flylab_state", map[string]any{}))
	sid := insp["page_session_id"].(string)
	rev := func(env map[string]any) any { return env["state_revision"] }
	cur := call("inspect_flylab_state", nil)

	mustCode(t, call("find_fly_circuits", map[string]any{"page_session_id": sid, "expected_state_revision": rev(cur), "query": "x", "bogus": 1}), "INVALID_INPUT")
	mustCode(t, call("find_fly_circuits", map[string]any{"page_session_id": "session_0000000000000000", "expected_state_revision": 1, "query": "walk"}), "NOT_FOUND")
	mustCode(t, call("find_fly_circuits", map[string]any{"page_session_id": sid, "expected_state_revision": 999, "query": "walk"}), "STALE_STATE")

	found := call("find_fly_circuits", map[string]any{"page_session_id": sid, "expected_state_revision": rev(cur),
		"query": "moonwalker descending neuron backward walking", "behavior": "backward_walking"})
	fd := mustOK(t, found)
	if fd["selected_circuit_id"] != "circuit_mdn_backward" {
		t.Fatalf("selected %v", fd["selected_circuit_id"])
	}
	draft := map[string]any{"page_session_id": sid, "expected_state_revision": rev(found), "circuit_id": "circuit_mdn_backward",
		"claim": "Activating MDN drives backward walking in the reduced-order model.", "predicted_behavior": "backward_walking",
		"perturbation": "activate", "primary_outcome": "backward_distance_mm", "expected_direction": "increase",
		"controls": []string{"condition_baseline", "condition_sham"}, "evidence_ids": []string{"E-MDN-SILENCING-002"},
		"evidence_limitations": []string{"Reduced-order model; not a wet-lab result."}, "falsification_criterion": "No increase over sham."}
	mustCode(t, call("draft_fly_hypothesis", draft), "EVIDENCE_MISMATCH")
	draft["evidence_ids"] = []string{"E-MDN-ACTIVATION-001"}
	drafted := call("draft_fly_hypothesis", draft)
	hyp := mustOK(t, drafted)["hypothesis"].(map[string]any)["id"].(string)

	bad := designArgs(sid, rev(drafted), hyp, 7)
	bad["onset_ms"], bad["duration_ms"], bad["trial_duration_ms"] = 4000, 3000, 5000
	mustCode(t, call("design_stimulation_trial", bad), "INVALID_TIMING")
	bad = designArgs(sid, rev(drafted), hyp, 7)
	bad["target_circuit_id"] = "circuit_anterior_grooming_dns"
	mustCode(t, call("design_stimulation_trial", bad), "UNSUPPORTED_TARGET")
	designed := call("design_stimulation_trial", designArgs(sid, rev(drafted), hyp, 7))
	exp := mustOK(t, designed)["experiment"].(map[string]any)
	expID, hash := exp["id"].(string), exp["protocolHash"].(string)

	run := map[string]any{"page_session_id": sid, "expected_state_revision": rev(designed), "experiment_id": expID,
		"approved_protocol_hash": hash, "operation_id": "run-1"}
	mustCode(t, call("run_fly_simulation", run), "APPROVAL_REQUIRED")

	approveURL := "/operator/v1/flylab/experiments/" + expID + "/approve"
	if r := s.Do(t, http.MethodPost, approveURL, key, map[string]any{"protocol_hash": hash}); r.Status != http.StatusForbidden {
		t.Fatalf("agent approve: %d", r.Status)
	}
	wrong := "sha256:" + string(make([]byte, 0)) + "0000000000000000000000000000000000000000000000000000000000000000"
	if r := s.Do(t, http.MethodPost, approveURL, s.OperatorToken, map[string]any{"protocol_hash": wrong}); r.Status != http.StatusConflict {
		t.Fatalf("mismatching approve: %d %s", r.Status, r.Body)
	}
	pending := s.Do(t, http.MethodGet, "/operator/v1/flylab/experiments?status=awaiting_approval", s.OperatorToken, nil)
	if pending.Status != http.StatusOK || !json.Valid(pending.Body) {
		t.Fatalf("list: %d", pending.Status)
	}
	if r := s.Do(t, http.MethodPost, approveURL, s.OperatorToken, map[string]any{"protocol_hash": hash}); r.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	after := call("inspect_flylab_state", nil)
	gate := mustOK(t, after)["agent_context"].(map[string]any)["human_gate"].(map[string]any)
	if gate["status"] != "satisfied" || gate["approved_protocol_hash"] != hash {
		t.Fatalf("gate after approval: %v", gate)
	}
	if after["state_revision"].(float64) != rev(designed).(float64)+1 {
		t.Fatalf("approval did not bump the revision: %v -> %v", rev(designed), after["state_revision"])
	}

	run["expected_state_revision"] = rev(after)
	run["approved_protocol_hash"] = wrong
	mustCode(t, call("run_fly_simulation", run), "EVIDENCE_MISMATCH")
	run["approved_protocol_hash"] = hash
	ran := call("run_fly_simulation", run)
	batch := mustOK(t, ran)
	batchID := batch["id"].(string)
	replay := call("run_fly_simulation", run)
	if mustOK(t, replay)["id"] != batchID || replay["idempotent_replay"] != true || replay["state_revision"] != ran["state_revision"] {
		t.Fatalf("replay: %v %v", replay["idempotent_replay"], replay["state_revision"])
	}
	conflict := map[string]any{}
	for k, v := range run {
		conflict[k] = v
	}
	conflict["experiment_id"] = "exp_other"
	mustCode(t, call("run_fly_simulation", conflict), "INVALID_INPUT")
	run["operation_id"], run["expected_state_revision"] = "run-2", rev(ran)
	mustCode(t, call("run_fly_simulation", run), "RUN_LIMIT_EXCEEDED")

	an := map[string]any{"page_session_id": sid, "expected_state_revision": rev(ran), "batch_id": batchID, "metrics": gfPanel}
	mustCode(t, call("analyze_fly_behavior", an), "METRIC_UNAVAILABLE")
	an["metrics"] = mdnPanel
	analyzed := call("analyze_fly_behavior", an)
	anID := mustOK(t, analyzed)["analysis"].(map[string]any)["id"].(string)
	compared := call("compare_fly_trials", map[string]any{"page_session_id": sid, "expected_state_revision": rev(analyzed),
		"analysis_ids": []string{anID}, "objective_metric": "backward_distance_mm", "objective": "maximize"})
	cmpID := mustOK(t, compared)["comparison"].(map[string]any)["id"].(string)

	save := map[string]any{"page_session_id": sid, "expected_state_revision": rev(compared), "scope": "mission",
		"hypothesis_id": hyp, "experiment_id": expID, "batch_ids": []string{batchID}, "analysis_ids": []string{anID},
		"comparison_id": cmpID, "note": "caller note", "operation_id": "save-1"}
	saved := call("save_fly_evidence", save)
	sd := mustOK(t, saved)
	checkExport(t, s, sd)
	if again := call("save_fly_evidence", save); again["idempotent_replay"] != true {
		t.Fatalf("save replay: %v", again["idempotent_replay"])
	}
	recordHistory(t, s, "flylab-session/"+sid, "session_pipeline_result_key_per_update")
	recordHistory(t, s, "flylab-experiment/"+expID, "experiment_approved")

	// A changed design revokes the approval and everything downstream; the
	// operator rejects the new one and the run stays blocked. A design
	// that replaces one still awaiting the operator revokes its record
	// when it commits (the design's activity itself revokes nothing).
	cur = call("inspect_flylab_state", nil)
	superseded := mustOK(t, call("design_stimulation_trial", designArgs(sid, rev(cur), hyp, 9)))["experiment"].(map[string]any)["id"].(string)
	cur = call("inspect_flylab_state", nil)
	redesigned := call("design_stimulation_trial", designArgs(sid, rev(cur), hyp, 8))
	newExp := mustOK(t, redesigned)["experiment"].(map[string]any)["id"].(string)
	waitFor(t, 10*time.Second, func() bool {
		var sv map[string]any
		s.Do(t, http.MethodGet, "/operator/v1/flylab/experiments/"+superseded, s.OperatorToken, nil).JSON(t, &sv)
		return sv["status"] == "revoked"
	})
	ctx := mustOK(t, call("inspect_flylab_state", nil))["agent_context"].(map[string]any)
	if ctx["artifacts"].(map[string]any)["batch_id"] != nil || ctx["human_gate"].(map[string]any)["status"] != "required" {
		t.Fatalf("redesign kept downstream lineage: %v", ctx["artifacts"])
	}
	if r := s.Do(t, http.MethodPost, "/operator/v1/flylab/experiments/"+newExp+"/reject", s.OperatorToken,
		map[string]any{"reason": "drive too strong"}); r.Status != http.StatusOK {
		t.Fatalf("reject: %d %s", r.Status, r.Body)
	}
	cur = call("inspect_flylab_state", nil)
	mustCode(t, call("run_fly_simulation", map[string]any{"page_session_id": sid, "expected_state_revision": rev(cur),
		"experiment_id": newExp, "approved_protocol_hash": hash, "operation_id": "run-3"}), "APPROVAL_REQUIRED")
	old := s.Do(t, http.MethodGet, "/operator/v1/flylab/experiments/"+expID, s.OperatorToken, nil)
	var ov map[string]any
	old.JSON(t, &ov)
	if ov["status"] != "revoked" && ov["status"] != "ran" {
		t.Fatalf("old experiment status %v", ov["status"])
	}
	recordHistory(t, s, "flylab-experiment/"+newExp, "experiment_rejected")
}

// checkExport validates the saved export against the published schema and
// the download endpoint.
func checkExport(t *testing.T, s *Stack, data map[string]any) {
	t.Helper()
	sch := s.Do(t, http.MethodGet, "/schemas/flylab-evidence-export-v3.schema.json", "", nil)
	if sch.Status != http.StatusOK {
		t.Fatalf("schema: %d", sch.Status)
	}
	schema, err := contracts.CompileJSON("https://gatehouse.local/export.json", sch.Body)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(data["evidence_export"])
	if v, err := schema.ValidateJSON(raw); err != nil || len(v) > 0 {
		t.Fatalf("export breaks the published schema: %v %v", err, v)
	}
	id := data["bundle"].(map[string]any)["id"].(string)
	dl := s.Do(t, http.MethodGet, "/v1/flylab/evidence/"+id, s.APIKey, nil)
	if dl.Status != http.StatusOK || dl.Header.Get("Content-Type") != "application/vnd.flylab.evidence+json" {
		t.Fatalf("download: %d %s", dl.Status, dl.Header.Get("Content-Type"))
	}
	if v, _ := schema.ValidateJSON(dl.Body); len(v) > 0 {
		t.Fatalf("downloaded export breaks the schema: %v", v)
	}
	// A schema that accepts everything would make this test useless.
	if v, _ := schema.ValidateJSON([]byte(`{"schema":"flylab.evidence-export"}`)); len(v) == 0 {
		t.Fatal("published schema accepts an incomplete export")
	}
}
