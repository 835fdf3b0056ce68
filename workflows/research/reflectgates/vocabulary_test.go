package reflectgates

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

// The contract's closed lists for a reflection wave.
var (
	contractGates = []string{"reflection_roster_incomplete", "reflections_complete", "project_graph_required", "reflection_doc_required",
		"change_spec_required", "reflection_review_required", "consolidation_proposal_required", "consolidation_review_required",
		"central_advance_required"}
	contractNext = []string{"fan_out_reflection_subagents", "submit_reflections", "update_and_submit_project_graph", "write_and_submit_reflection_doc",
		"write_and_submit_change_spec", "submit_reflection_artifacts", "begin_consolidation", "submit_consolidation_proposal", "advance_central",
		"wait_for_central_advance", "wait_for_runner_publish", "launch_reflection_reviewer", "wait_for_reflection_review",
		"launch_consolidation_reviewer", "wait_for_consolidation_review", "abandon_reflection"}
)

// situations are the facts of every situation of st: each row first
// unmet at every level, and every row met, each with no override
// condition and with each one alone.
func situations(st gateengine.Stage[Status]) []gateengine.Facts {
	var out []gateengine.Facts
	with := func(f gateengine.Facts) {
		out = append(out, f)
		for _, o := range st.Overrides {
			g := maps.Clone(f)
			g[o.When] = gateengine.Satisfied
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

// produced walks every situation of every stage, collecting the gate
// codes and next actions it emits.
func produced() (gateCodes, nexts []string) {
	for _, st := range Table {
		for _, f := range situations(st) {
			d := Evaluate(st.Status, f)
			gateCodes, nexts = append(gateCodes, d.Gate), append(nexts, d.NextAction)
		}
	}
	return gateCodes, nexts
}

// TestVocabulary_EveryContractGateAndNextActionIsProducedAndNothingElse
// walks the table: each code of the contract's lists comes out in some
// situation (abandon_reflection too, by the overrides), and what comes out is the contract's (or the reference's
// <review> status gate, <review>_passed, <role>_invalid / fix_<role>_artifact
// and terminal/none).
func TestVocabulary_EveryContractGateAndNextActionIsProducedAndNothingElse(t *testing.T) {
	gateCodes, nexts := produced()
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
		ok := slices.Contains(contractGates, g) || strings.HasSuffix(g, "_passed") || strings.HasSuffix(g, "_invalid") ||
			g == string(ReflectionReview) || g == string(Consolidating)
		if !ok {
			t.Errorf("gate %s is outside the contract's list", g)
		}
	}
	for _, n := range nexts {
		fixArtifact := strings.HasPrefix(n, "fix_") && strings.HasSuffix(n, "_artifact")
		if !slices.Contains(contractNext, n) && !fixArtifact {
			t.Errorf("next_action %s is outside the contract's list", n)
		}
	}
}
