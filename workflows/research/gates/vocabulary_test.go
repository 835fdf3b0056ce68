package gates

import (
	"maps"
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
		"submit_results_for_review", "complete_experiment", "retry_running", "mark_experiment_failed", "abandon_experiment",
		"launch_design_reviewer", "wait_for_design_review", "launch_experiment_reviewer", "wait_for_experiment_review"}

	// Gatehouse's words for an experiment that depends on others (a
	// reflection's follow-up), which the contract does not cover.
	dependencyGates = []string{"dependencies_pending", "dependency_failed"}
	dependencyNext  = []string{"wait_for_dependencies"}
)

// conditions are the condition sets a walk tries at each situation of
// st: none, a sandbox running, and each override's condition alone.
func conditions(st gateengine.Stage[Status]) []gateengine.Facts {
	out := []gateengine.Facts{{}, {EvSandboxRunning: gateengine.Satisfied}}
	for _, o := range st.Overrides {
		out = append(out, gateengine.Facts{o.When: gateengine.Satisfied})
	}
	return out
}

// situations are the facts of every situation of st: each row first
// unmet at every level, and every row met, each under every condition set.
func situations(st gateengine.Stage[Status]) []gateengine.Facts {
	var out []gateengine.Facts
	with := func(f gateengine.Facts) {
		for _, c := range conditions(st) {
			g := maps.Clone(f)
			maps.Copy(g, c)
			out = append(out, g)
		}
	}
	for i, r := range st.Requirements {
		for _, lv := range []gateengine.Level{gateengine.Missing, gateengine.Invalid, gateengine.Requested, gateengine.Started} {
			f := satisfiedBefore(st, i)
			f[r.Evidence] = lv
			with(f)
		}
	}
	with(satisfiedBefore(st, len(st.Requirements)))
	return out
}

// TestVocabulary_EveryContractGateAndNextActionIsProducedAndNothingElse
// walks every situation of every stage: each code of the contract's
// lists comes out in some situation (retry_running, mark_experiment_failed
// and abandon_experiment too, by the overrides), and what comes out is
// the contract's, the reference's (<review> status gate, <review>_passed,
// execution_active, terminal/none), the <role>_invalid /
// fix_<role>_artifact family or the dependency words.
func TestVocabulary_EveryContractGateAndNextActionIsProducedAndNothingElse(t *testing.T) {
	var gateCodes, nexts []string
	add := func(d gateengine.Decision) { gateCodes, nexts = append(gateCodes, d.Gate), append(nexts, d.NextAction) }
	for _, st := range Table {
		for _, f := range situations(st) {
			add(Evaluate(st.Status, f))
		}
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
