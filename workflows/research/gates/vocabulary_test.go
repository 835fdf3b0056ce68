package gates

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

// The contract's closed lists for an experiment.
var (
	contractGates = []string{"plan_required", "design_review_required", "execution_ready", "results_report_required",
		"logic_graph_required", "experiment_review_required"}
	contractNext = []string{"write_and_submit_plan", "submit_design_for_review", "mark_ready_to_run", "start_running",
		"run_experiment_and_retain_results", "write_and_submit_results_report", "write_and_submit_logic_graph",
		"submit_results_for_review", "complete_experiment", "abandon_experiment",
		"launch_design_reviewer", "wait_for_design_review", "launch_experiment_reviewer", "wait_for_experiment_review"}
	// retry_running and mark_experiment_failed, the contract's other two,
	// are not produced as next actions: no situation of the contract or the
	// reference names them the next step. They are in allowed_actions as
	// transitions wherever they are allowed.

	// Gatehouse's words for an experiment that depends on others (a
	// reflection's follow-up), which the contract does not cover.
	dependencyGates = []string{"dependencies_pending", "dependency_failed"}
	dependencyNext  = []string{"wait_for_dependencies"}
)

// TestVocabulary_EveryContractGateAndNextActionIsProducedAndNothingElse
// walks every row at every level and every forward gate.
func TestVocabulary_EveryContractGateAndNextActionIsProducedAndNothingElse(t *testing.T) {
	var gateCodes, nexts []string
	add := func(d gateengine.Decision) { gateCodes, nexts = append(gateCodes, d.Gate), append(nexts, d.NextAction) }
	for _, st := range Table {
		for i, r := range st.Requirements {
			for _, lv := range []gateengine.Level{gateengine.Missing, gateengine.Invalid, gateengine.Requested, gateengine.Started} {
				f := satisfiedBefore(st, i)
				f[r.Evidence] = lv
				add(Evaluate(st.Status, f))
				f[EvSandboxRunning] = gateengine.Satisfied
				add(Evaluate(st.Status, f))
			}
		}
		add(Evaluate(st.Status, satisfiedBefore(st, len(st.Requirements))))
	}
	add(Evaluate(Complete, gateengine.Facts{}))
	for _, g := range contractGates {
		if !slices.Contains(gateCodes, g) {
			t.Errorf("contract gate %s is never produced", g)
		}
	}
	for _, n := range contractNext {
		if !slices.Contains(nexts, n) {
			t.Errorf("contract next_action %s is never produced", n)
		}
	}
	for _, g := range gateCodes {
		ok := slices.Contains(contractGates, g) || slices.Contains(dependencyGates, g) || strings.HasSuffix(g, "_passed") ||
			strings.HasSuffix(g, "_invalid") || g == string(DesignReview) || g == string(ExperimentReview) ||
			g == "execution_active" || g == "terminal"
		if !ok {
			t.Errorf("gate %s is outside the contract's and the reference's lists", g)
		}
	}
	for _, n := range nexts {
		ok := slices.Contains(contractNext, n) || slices.Contains(dependencyNext, n) || n == "none" ||
			(strings.HasPrefix(n, "fix_") && strings.HasSuffix(n, "_artifact"))
		if !ok {
			t.Errorf("next_action %s is outside the contract's and the reference's lists", n)
		}
	}
}
