package flylab

import (
	"slices"

	science "github.com/gatehouse/gatehouse/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// Defaults of the trial next_action proposes; the agent may change any of
// them (they are inside the contract's bounds for every catalogued
// circuit).
const (
	proposedActivation = 0.8
	proposedOnsetMs    = 500
	proposedDurationMs = 1000
	proposedTrialMs    = 3000
	proposedReplicates = 5
	proposedSeed       = 1
)

// nextAction is the exact next valid call: the tool, and arguments that
// pass its schema as they are once the agent adds the fields listed in
// agent_supplies (its own content: a search query, a hypothesis's claim
// and limits). Operation ids are stable per logical operation and scoped
// to the session's experiment or comparison, so a retry reuses one and
// no two operations share one.
func nextAction(st wf.SessionState) map[string]any {
	e := st.Experiment
	switch {
	case st.Running != "":
		return map[string]any{"kind": "wait", "name": st.Running, "callable": false, "blocked_by": []string{"running"},
			"reason": st.Running + " is in progress; call inspect_flylab_state again.", "input_refs": map[string]any{},
			"agent_supplies": []string{}}
	case st.Bundle != nil:
		return map[string]any{"kind": "complete", "name": "", "callable": false, "blocked_by": []string{},
			"reason":     "The evidence bundle " + st.Bundle.ID + " is saved. A new search (find_fly_circuits) starts a new mission in this page session; inspect_flylab_state with new_page_session and an operation_id opens a fresh one.",
			"input_refs": map[string]any{"evidence_bundle_id": st.Bundle.ID}, "agent_supplies": []string{}}
	case st.Hypothesis == nil && st.Discovery != nil && st.Discovery.SelectedCircuitID == "":
		return toolAction(st, wf.ToolFind, "The last search selected no circuit (none matched, or several tied); search again naming one circuit, neuron type or behavior.",
			map[string]any{}, "query")
	case st.Hypothesis != nil && (e == nil || e.HypothesisID != st.Hypothesis.ID):
		if !designable(st.Hypothesis.CircuitID, st.Hypothesis.Perturbation) {
			return discoveryAction(st)
		}
		return designAction(st, "Design a controlled trial for the hypothesis.")
	case e == nil:
		return discoveryAction(st)
	}
	return lineageAction(st)
}

// lineageAction is the next step of the current experiment's lineage.
func lineageAction(st wf.SessionState) map[string]any {
	e := st.Experiment
	switch {
	case st.Comparison != nil && st.Batch != nil && savable(st):
		return toolAction(st, wf.ToolSave, "Save the complete lineage to the evidence ledger.", map[string]any{
			"scope": "experiment", "hypothesis_id": e.HypothesisID, "experiment_id": e.ID, "batch_ids": []string{st.Batch.ID},
			"analysis_ids": analysisIDs(st), "comparison_id": st.Comparison.ID, "operation_id": "save-" + st.Comparison.ID})
	case len(st.Analyses) > 0:
		refs := map[string]any{"analysis_ids": analysisIDs(st), "objective": "maximize"}
		if st.Hypothesis != nil {
			refs["objective_metric"] = st.Hypothesis.PrimaryOutcome
			if st.Hypothesis.Direction == "decrease" {
				refs["objective"] = "minimize"
			}
		} else if len(e.RecommendedMetrics) > 0 {
			refs["objective_metric"] = e.RecommendedMetrics[0]
		}
		return toolAction(st, wf.ToolCompare, "Rank the analysed conditions (add earlier analyses from artifacts.comparable_analysis_ids to compare trials).", refs)
	case st.Batch != nil:
		return toolAction(st, wf.ToolAnalyze, "Analyze the batch with the motor map's five-metric panel.",
			map[string]any{"batch_id": st.Batch.ID, "metrics": e.RecommendedMetrics})
	case e.Status == wf.ExperimentApproved:
		return toolAction(st, wf.ToolRun, "The operator approved the protocol; run it once.",
			map[string]any{"experiment_id": e.ID, "approved_protocol_hash": e.ProtocolHash, "operation_id": "run-" + e.ID})
	case e.Status == wf.ExperimentAwaiting:
		return map[string]any{"kind": "human_gate", "name": "approve_experiment", "callable": false,
			"blocked_by": []string{"operator_approval"}, "reason": "Waiting for an operator to approve the protocol; no tool can do this.",
			"input_refs":     map[string]any{"experiment_id": e.ID, "pending_protocol_hash": e.ProtocolHash, "expires_at": e.ExpiresAt},
			"agent_supplies": []string{}}
	case st.Hypothesis != nil:
		return designAction(st, "The gate closed without a run ("+e.Status+": "+e.Reason+"); design the trial again (a changed or identical design is a new experiment for the operator).")
	}
	return discoveryAction(st)
}

// savable says the comparison ranks only the current lineage's analyses,
// which is what one evidence bundle (one batch) can carry.
func savable(st wf.SessionState) bool {
	for _, id := range st.Comparison.AnalysisIDs {
		if !slices.ContainsFunc(st.Analyses, func(a wf.AnalysisRef) bool { return a.ID == id }) {
			return false
		}
	}
	return true
}

// discoveryAction drafts a hypothesis from the discovery, or starts with
// a search.
func discoveryAction(st wf.SessionState) map[string]any {
	d := st.Discovery
	if d == nil || d.SelectedCircuitID == "" {
		return toolAction(st, wf.ToolFind, "Search the circuit catalog for the behavior of interest.", map[string]any{}, "query")
	}
	refs := map[string]any{"circuit_id": d.SelectedCircuitID,
		"controls": []string{science.ConditionBaselineID, science.ConditionShamID}}
	c, err := science.CircuitByID(d.SelectedCircuitID)
	frame := map[string]any{}
	if err == nil {
		frame = hypothesisFrame(c, d)
	}
	if len(frame) == 0 {
		return toolAction(st, wf.ToolFind, "The selected circuit "+d.SelectedCircuitID+" cannot be simulated (catalog-only, or no discovered causal evidence for a perturbation its motor map supports); search for another circuit.",
			map[string]any{}, "query")
	}
	for k, v := range frame {
		refs[k] = v
	}
	return toolAction(st, wf.ToolDraft, "Draft a falsifiable hypothesis from the discovered causal evidence.", refs,
		"claim", "expected_direction", "evidence_limitations", "falsification_criterion")
}

// designable says a trial can be designed on the circuit with the
// perturbation: the circuit has a mapped reduced-order model that
// supports it.
func designable(circuitID, perturbation string) bool {
	c, err := science.CircuitByID(circuitID)
	return err == nil && c.ModelCoverage == science.CoverageMappedReducedOrder &&
		slices.Contains(c.MotorMap.SupportedPerturbations, perturbation) && len(c.MotorMap.SupportedLaterality) > 0
}

// hypothesisFrame picks the perturbation, behavior, causal evidence and
// primary outcome a hypothesis on c can cite from the discovery and test
// in a trial: the first perturbation the motor map supports with a
// discovered perturbation_effect record for the circuit's primary
// behavior (activation first). It is empty when there is none.
func hypothesisFrame(c science.Circuit, d *wf.DiscoveryRef) map[string]any {
	behavior := c.PrimaryBehavior()
	for _, p := range []string{science.PerturbationActivate, science.PerturbationSilence} {
		if !designable(c.ID, p) {
			continue
		}
		var ids []string
		for _, id := range d.EligibleIDs {
			ev, err := science.EvidenceByID(id)
			if err == nil && slices.Contains(c.EvidenceIDs, id) && ev.Kind == science.KindPerturbationEffect &&
				slices.Contains(ev.Perturbations, p) && slices.Contains(ev.Behaviors, behavior) {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			continue
		}
		f := map[string]any{"perturbation": p, "predicted_behavior": behavior, "evidence_ids": ids}
		if panel := c.MotorMap.RecommendedMetrics; len(panel) > 0 {
			f["primary_outcome"] = panel[0]
		}
		return f
	}
	return map[string]any{}
}

// designAction proposes a complete controlled trial for the hypothesis.
func designAction(st wf.SessionState, reason string) map[string]any {
	h := st.Hypothesis
	refs := map[string]any{"hypothesis_id": h.ID, "target_circuit_id": h.CircuitID, "perturbation": h.Perturbation,
		"activation_level": proposedActivation, "onset_ms": proposedOnsetMs, "duration_ms": proposedDurationMs,
		"trial_duration_ms": proposedTrialMs, "replicates": proposedReplicates, "include_baseline": true,
		"include_sham_control": true, "seed": proposedSeed}
	supplies := []string{}
	if c, err := science.CircuitByID(h.CircuitID); err == nil && len(c.MotorMap.SupportedLaterality) > 0 {
		refs["laterality"] = c.MotorMap.SupportedLaterality[0]
	} else {
		supplies = append(supplies, "laterality")
	}
	return toolAction(st, wf.ToolDesign, reason, refs, supplies...)
}

// toolAction is a callable next_action: arguments are the session's id and
// revision plus refs; agentSupplies names the required fields the agent
// must add from its own content.
func toolAction(st wf.SessionState, name, reason string, refs map[string]any, agentSupplies ...string) map[string]any {
	args := map[string]any{"page_session_id": st.SessionID, "expected_state_revision": st.Revision}
	for k, v := range refs {
		args[k] = v
	}
	if agentSupplies == nil {
		agentSupplies = []string{}
	}
	return map[string]any{"kind": "tool", "name": name, "callable": true, "blocked_by": []string{},
		"reason": reason, "input_refs": refs, "arguments": args, "agent_supplies": agentSupplies}
}
