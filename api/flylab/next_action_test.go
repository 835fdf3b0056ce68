package flylab

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/api/rest"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// agentContent is what an agent adds for each field next_action leaves
// to it.
var agentContent = map[string]any{
	"query": "moonwalker descending neuron backward walking", "claim": "Activating the circuit changes the behavior in the model.",
	"expected_direction": "increase", "evidence_limitations": []string{"Reduced-order model; not a wet-lab result."},
	"falsification_criterion": "No change over sham.", "laterality": "bilateral",
}

const naHash = "sha256:2222222222222222222222222222222222222222222222222222222222222222"

func naState(mut func(*wf.SessionState)) wf.SessionState {
	st := wf.SessionState{SessionID: "session_0123456789abcdef", Revision: 6}
	mut(&st)
	return st
}

var (
	naDiscovery = &wf.DiscoveryRef{ID: "dd_1", SelectedCircuitID: "circuit_mdn_backward",
		EvidenceIDs: []string{"E-MDN-ACTIVATION-001", "E-MDN-SILENCING-002"}, EligibleIDs: []string{"E-MDN-ACTIVATION-001", "E-MDN-SILENCING-002"}}
	naHypothesis = &wf.HypothesisRef{ID: "hyp_1", CircuitID: "circuit_mdn_backward", Behavior: "backward_walking",
		Perturbation: "activate", PrimaryOutcome: "backward_distance_mm", Direction: "increase"}
	naPanel = []string{"backward_distance_mm", "signed_speed_mm_s", "response_latency_ms", "stance_stability", "leg_recruitment"}
)

func naExperiment(status string) *wf.ExperimentRef {
	return &wf.ExperimentRef{ID: "exp_1", HypothesisID: "hyp_1", CircuitID: "circuit_mdn_backward", ProtocolHash: naHash,
		SeedManifestHash: naHash, Status: status, Reason: "approval expired before the experiment ran", RecommendedMetrics: naPanel}
}

// TestNextAction_IsTheExactNextValidCall walks the states of a mission
// and checks next_action names the right tool with arguments that pass
// its input schema once the agent adds only the fields in
// agent_supplies, never a placeholder and never an empty id.
func TestNextAction_IsTheExactNextValidCall(t *testing.T) {
	svc, err := NewService(rest.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		st   wf.SessionState
		want string
	}{
		{"fresh session", naState(func(*wf.SessionState) {}), wf.ToolFind},
		{"ambiguous or empty search", naState(func(s *wf.SessionState) { s.Discovery = &wf.DiscoveryRef{ID: "dd_0"} }), wf.ToolFind},
		{"circuit selected", naState(func(s *wf.SessionState) { s.Discovery = naDiscovery }), wf.ToolDraft},
		{"hypothesis drafted", naState(func(s *wf.SessionState) { s.Discovery, s.Hypothesis = naDiscovery, naHypothesis }), wf.ToolDesign},
		{"approved", naState(func(s *wf.SessionState) {
			s.Discovery, s.Hypothesis, s.Experiment = naDiscovery, naHypothesis, naExperiment(wf.ExperimentApproved)
		}), wf.ToolRun},
		{"approval lapsed", naState(func(s *wf.SessionState) {
			s.Discovery, s.Hypothesis, s.Experiment = naDiscovery, naHypothesis, naExperiment(wf.ExperimentRevoked)
		}), wf.ToolDesign},
		{"ran", naState(func(s *wf.SessionState) {
			s.Hypothesis, s.Experiment, s.Batch = naHypothesis, naExperiment(wf.ExperimentRan), &wf.BatchRef{ID: "batch_1", ExperimentID: "exp_1"}
		}), wf.ToolAnalyze},
		{"compared across trials", naState(func(s *wf.SessionState) {
			s.Hypothesis, s.Experiment, s.Batch = naHypothesis, naExperiment(wf.ExperimentRan), &wf.BatchRef{ID: "batch_1", ExperimentID: "exp_1"}
			s.Analyses = []wf.AnalysisRef{{ID: "analysis_2", BatchID: "batch_1"}}
			s.Comparison = &wf.ComparisonRef{ID: "comparison_1", AnalysisIDs: []string{"analysis_1", "analysis_2"}}
		}), wf.ToolCompare},
		{"compared", naState(func(s *wf.SessionState) {
			s.Hypothesis, s.Experiment, s.Batch = naHypothesis, naExperiment(wf.ExperimentRan), &wf.BatchRef{ID: "batch_1", ExperimentID: "exp_1"}
			s.Analyses = []wf.AnalysisRef{{ID: "analysis_2", BatchID: "batch_1"}}
			s.Comparison = &wf.ComparisonRef{ID: "comparison_1", AnalysisIDs: []string{"analysis_2"}}
		}), wf.ToolSave},
		{"catalog-only circuit selected", naState(func(s *wf.SessionState) {
			s.Discovery = &wf.DiscoveryRef{ID: "dd_2", SelectedCircuitID: "circuit_anterior_grooming_dns", EligibleIDs: []string{"E-ANTGROOM-070"}}
		}), wf.ToolFind},
		{"hypothesis on a catalog-only circuit", naState(func(s *wf.SessionState) {
			s.Discovery = &wf.DiscoveryRef{ID: "dd_2", SelectedCircuitID: "circuit_anterior_grooming_dns", EligibleIDs: []string{"E-ANTGROOM-070"}}
			s.Hypothesis = &wf.HypothesisRef{ID: "hyp_3", CircuitID: "circuit_anterior_grooming_dns", Behavior: "grooming", Perturbation: "activate"}
		}), wf.ToolFind},
		{"new hypothesis after a saved mission", naState(func(s *wf.SessionState) {
			s.Discovery, s.Experiment = naDiscovery, naExperiment(wf.ExperimentRan)
			h := *naHypothesis
			h.ID = "hyp_2"
			s.Hypothesis = &h
		}), wf.ToolDesign},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next := nextAction(c.st)
			if next["name"] != c.want || next["callable"] != true {
				t.Fatalf("next_action %v, want %s", next, c.want)
			}
			args := map[string]any{}
			for k, v := range next["arguments"].(map[string]any) {
				args[k] = v
			}
			for _, f := range next["agent_supplies"].([]string) {
				args[f] = agentContent[f]
			}
			raw, _ := json.Marshal(args)
			if strings.Contains(string(raw), "<") || strings.Contains(string(raw), `:""`) {
				t.Fatalf("arguments carry a placeholder or an empty value: %s", raw)
			}
			v, err := svc.byName[c.want].schema.ValidateJSON(raw)
			if err != nil || len(v) > 0 {
				t.Fatalf("arguments %s break the %s schema: %v %v", raw, c.want, v, err)
			}
		})
	}
}

// TestNextAction_OperationIDsAreStablePerOperation: the run and save
// next_actions carry an operation id that repeats for the same logical
// operation and differs for another experiment or comparison.
func TestNextAction_OperationIDsAreStablePerOperation(t *testing.T) {
	opOf := func(st wf.SessionState) any { return nextAction(st)["arguments"].(map[string]any)["operation_id"] }
	a := naState(func(s *wf.SessionState) {
		s.Hypothesis, s.Experiment = naHypothesis, naExperiment(wf.ExperimentApproved)
	})
	b := naState(func(s *wf.SessionState) {
		s.Hypothesis, s.Experiment = naHypothesis, naExperiment(wf.ExperimentApproved)
		s.Experiment.ID = "exp_2"
	})
	if opOf(a) != opOf(a) || opOf(a) == opOf(b) || opOf(a) != "run-exp_1" {
		t.Fatalf("run operation ids %v %v", opOf(a), opOf(b))
	}
}
