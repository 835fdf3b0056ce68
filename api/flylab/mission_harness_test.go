package flylab

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"
	"gorm.io/gorm"

	activities "github.com/gatehouse/gatehouse/activities/flylab"
	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/internal/config"
	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// testPublicURL is the API's public URL in these tests (the worker has none).
const testPublicURL = "https://flylab.example.test"

// missionRun drives the real tool activities over one database, applying
// each effect to the session as the workflow would, and wraps every
// committed result in the API's envelope: what an agent receives.
type missionRun struct {
	t     *testing.T
	db    *gorm.DB
	svc   *Service
	acts  *activities.Activities
	state wf.SessionState
	// envelopes are the success envelopes by tool, in call order.
	envelopes map[string]map[string]any
}

func newMissionRun(t *testing.T, db *gorm.DB) *missionRun {
	t.Helper()
	svc, err := NewService(rest.Deps{DB: db, Config: config.Config{PublicURL: testPublicURL}})
	if err != nil {
		t.Fatal(err)
	}
	return &missionRun{t: t, db: db, svc: svc, acts: &activities.Activities{DB: db, SchemaURL: models.ExportSchemaPath},
		state: wf.SessionState{SessionID: "session_mission", Revision: 1}, envelopes: map[string]map[string]any{}}
}

// call runs one tool's activity and returns its envelope.
func (m *missionRun) call(tool string, args map[string]any) map[string]any {
	m.t.Helper()
	ctx := context.Background()
	raw, _ := json.Marshal(args)
	call := wf.ToolCall{SessionID: m.state.SessionID, Tool: tool, Args: raw, ResultKey: "result/" + tool,
		OperationKey: "op/" + tool, Session: m.state}
	fn := map[string]any{wf.ToolFind: m.acts.FindCircuits, wf.ToolDraft: m.acts.DraftHypothesis,
		wf.ToolDesign: m.acts.DesignTrial, wf.ToolRun: m.acts.Simulate, wf.ToolAnalyze: m.acts.Analyze,
		wf.ToolCompare: m.acts.Compare, wf.ToolSave: m.acts.SaveEvidence}[tool]
	// Run inside Temporal's activity test environment: the activities
	// heartbeat as they would on a worker.
	actEnv := (&testsuite.WorkflowTestSuite{}).NewTestActivityEnvironment()
	actEnv.RegisterActivity(fn)
	var eff wf.ToolEffect
	val, err := actEnv.ExecuteActivity(fn, call)
	if err == nil {
		err = val.Get(&eff)
	}
	if err != nil || eff.Failure != nil {
		m.t.Fatalf("%s: err=%v failure=%+v", tool, err, eff.Failure)
	}
	prev := m.state.Revision
	m.apply(eff.Patch)
	m.state.Revision++
	stored, err := models.LoadToolResult(ctx, m.db, call.ResultKey)
	if err != nil {
		m.t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(stored, &data); err != nil {
		m.t.Fatal(err)
	}
	m.svc.decorate(tool, m.state, data)
	env := m.svc.success(tool, m.state, wf.ToolOutcome{PreviousRevision: prev, Revision: m.state.Revision,
		CreatedArtifactIDs: eff.CreatedArtifactIDs}, "op-"+tool, data)
	m.envelopes[tool] = env
	return env
}

func (m *missionRun) inspect() map[string]any {
	data := map[string]any{"page_session_id": m.state.SessionID, "agent_context": m.svc.agentContext(m.state)}
	env := m.svc.success(wf.ToolInspect, m.state, wf.ToolOutcome{PreviousRevision: m.state.Revision,
		Revision: m.state.Revision, CreatedArtifactIDs: []string{}}, "", data)
	m.envelopes[wf.ToolInspect] = env
	return env
}

func (m *missionRun) apply(p wf.Patch) {
	st := &m.state
	if p.Discovery != nil {
		st.Discovery = p.Discovery
	}
	if p.Hypothesis != nil {
		st.Hypothesis = p.Hypothesis
	}
	if p.Experiment != nil {
		st.Experiment = p.Experiment
	}
	if p.Batch != nil {
		st.Batch = p.Batch
		st.Experiment.Status = wf.ExperimentRan
	}
	if p.Analysis != nil {
		st.Analyses = append(st.Analyses, *p.Analysis)
	}
	if p.Comparison != nil {
		st.Comparison = p.Comparison
	}
	if p.Bundle != nil {
		st.Bundle = p.Bundle
	}
}

// approve records the operator's approval as the experiment workflow does.
func (m *missionRun) approve() {
	m.t.Helper()
	e := m.state.Experiment
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).Format(time.RFC3339)
	if err := m.acts.RecordDecision(context.Background(), wf.DecisionRecord{ExperimentID: e.ID, Status: wf.ExperimentApproved,
		ProtocolHash: e.ProtocolHash, DecidedAt: at, DecidedBy: "operator-test"}); err != nil {
		m.t.Fatal(err)
	}
	e.Status, e.ApprovedAt = wf.ExperimentApproved, at
}

// mdnMission runs a whole mission on MDN (mission scope, with a caller
// title and note) and returns the run with every envelope.
func mdnMission(t *testing.T, db *gorm.DB) *missionRun {
	t.Helper()
	m := newMissionRun(t, db)
	m.inspect()
	m.call(wf.ToolFind, map[string]any{"query": "which neurons make a fly walk backward (MDN)?", "behavior": "backward_walking", "limit": 8})
	circuit := m.state.Discovery.SelectedCircuitID
	m.call(wf.ToolDraft, map[string]any{"circuit_id": circuit, "claim": "Activating MDN increases backward distance.",
		"predicted_behavior": "backward_walking", "perturbation": "activate", "primary_outcome": "backward_distance_mm",
		"expected_direction": "increase", "controls": []string{"condition_baseline", "condition_sham"},
		"evidence_ids": m.state.Discovery.Causal["activate"], "evidence_limitations": []string{"Reduced-order model, unfitted gains."},
		"falsification_criterion": "Backward distance does not exceed sham."})
	m.call(wf.ToolDesign, map[string]any{"hypothesis_id": m.state.Hypothesis.ID, "target_circuit_id": circuit,
		"perturbation": "activate", "laterality": "bilateral", "activation_level": 0.8, "onset_ms": 300, "duration_ms": 400,
		"trial_duration_ms": 1000, "replicates": 1, "include_baseline": true, "include_sham_control": true, "seed": 7})
	m.approve()
	m.call(wf.ToolRun, map[string]any{"experiment_id": m.state.Experiment.ID, "approved_protocol_hash": m.state.Experiment.ProtocolHash,
		"operation_id": "run-1"})
	m.call(wf.ToolAnalyze, map[string]any{"batch_id": m.state.Batch.ID, "metrics": m.state.Experiment.RecommendedMetrics})
	m.call(wf.ToolCompare, map[string]any{"analysis_ids": []string{m.state.Analyses[0].ID},
		"objective_metric": "backward_distance_mm", "objective": "maximize"})
	m.call(wf.ToolSave, map[string]any{"scope": "mission", "title": "My measured MDN result", "note": "measured by me",
		"hypothesis_id": m.state.Hypothesis.ID, "experiment_id": m.state.Experiment.ID, "batch_ids": []string{m.state.Batch.ID},
		"analysis_ids": []string{m.state.Analyses[0].ID}, "comparison_id": m.state.Comparison.ID, "operation_id": "save-1"})
	m.inspect()
	return m
}
