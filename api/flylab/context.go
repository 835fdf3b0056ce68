package flylab

import (
	science "github.com/gatehouse/gatehouse/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// agentContext renders flylab.agent-context.v3 from the session state.
func (s *Service) agentContext(st wf.SessionState) map[string]any {
	var goal any
	if st.Discovery != nil {
		goal = st.Discovery.Goal
	}
	return map[string]any{
		"schema_version": "flylab.agent-context.v3", "page_session_id": st.SessionID,
		"agent_status": agentStatus(st),
		"state":        map[string]any{"revision": st.Revision, "stage": stage(st), "goal": goal},
		"artifacts":    flatArtifacts(st), "next_action": nextAction(st), "blockers": blockers(st),
		"human_gate": humanGate(st), "pipeline": pipeline(st), "artifact_manifest": artifactManifest(st),
		"provenance_policy": s.policy,
	}
}

func agentStatus(st wf.SessionState) string {
	switch {
	case st.Running != "":
		return "running"
	case st.Bundle != nil:
		return "complete"
	case st.Experiment != nil && st.Experiment.Status == wf.ExperimentAwaiting:
		return "waiting_for_human"
	}
	return "ready"
}

func stage(st wf.SessionState) string {
	e := st.Experiment
	switch {
	case st.Bundle != nil:
		return "saved"
	case st.Comparison != nil || len(st.Analyses) > 0:
		return "continue"
	case st.Batch != nil:
		return "analyze"
	case e != nil && e.Status == wf.ExperimentApproved:
		return "run"
	case st.Hypothesis != nil:
		return "design"
	case st.Discovery != nil:
		return "hypothesize"
	}
	return "discover"
}

func blockers(st wf.SessionState) []any {
	e := st.Experiment
	if e == nil {
		return []any{}
	}
	switch e.Status {
	case wf.ExperimentAwaiting:
		return []any{map[string]any{"id": "operator_approval", "blocks": wf.ToolRun,
			"reason": "An operator must approve protocol_hash " + e.ProtocolHash + " outside the tool surface."}}
	case wf.ExperimentRejected:
		return []any{map[string]any{"id": "operator_rejected", "blocks": wf.ToolRun,
			"reason": "The operator rejected the experiment: " + e.Reason + ". Design a changed trial."}}
	}
	return []any{}
}

// nextAction is the exact next valid call and its arguments skeleton.
func nextAction(st wf.SessionState) map[string]any {
	tool := func(name, reason string, refs map[string]any) map[string]any {
		args := map[string]any{"page_session_id": st.SessionID, "expected_state_revision": st.Revision}
		for k, v := range refs {
			args[k] = v
		}
		return map[string]any{"kind": "tool", "name": name, "callable": true, "blocked_by": []string{},
			"reason": reason, "input_refs": refs, "arguments": args}
	}
	e := st.Experiment
	switch {
	case st.Running != "":
		return map[string]any{"kind": "wait", "name": st.Running, "callable": false, "blocked_by": []string{"running"},
			"reason": st.Running + " is in progress; call inspect_flylab_state again.", "input_refs": map[string]any{}}
	case st.Bundle != nil:
		return map[string]any{"kind": "complete", "name": "", "callable": false, "blocked_by": []string{},
			"reason": "The evidence bundle " + st.Bundle.ID + " is saved.", "input_refs": map[string]any{"evidence_bundle_id": st.Bundle.ID}}
	case st.Comparison != nil:
		return tool(wf.ToolSave, "Save the complete lineage to the evidence ledger.", map[string]any{
			"scope": "experiment", "hypothesis_id": e.HypothesisID, "experiment_id": e.ID, "batch_ids": []string{st.Batch.ID},
			"analysis_ids": analysisIDs(st), "comparison_id": st.Comparison.ID, "operation_id": "<stable id>"})
	case len(st.Analyses) > 0:
		refs := map[string]any{"analysis_ids": analysisIDs(st), "objective": "maximize"}
		if st.Hypothesis != nil {
			refs["objective_metric"] = st.Hypothesis.PrimaryOutcome
		}
		return tool(wf.ToolCompare, "Rank the analysed conditions.", refs)
	case st.Batch != nil:
		return tool(wf.ToolAnalyze, "Analyze the batch with the motor map's five-metric panel.",
			map[string]any{"batch_id": st.Batch.ID, "metrics": e.RecommendedMetrics})
	case e != nil && e.Status == wf.ExperimentApproved:
		return tool(wf.ToolRun, "The operator approved the protocol; run it once.",
			map[string]any{"experiment_id": e.ID, "approved_protocol_hash": e.ProtocolHash, "operation_id": "<stable id>"})
	case e != nil && e.Status == wf.ExperimentAwaiting:
		return map[string]any{"kind": "human_gate", "name": "approve_experiment", "callable": false,
			"blocked_by": []string{"operator_approval"}, "reason": "Waiting for an operator to approve the protocol; no tool can do this.",
			"input_refs": map[string]any{"experiment_id": e.ID, "pending_protocol_hash": e.ProtocolHash}}
	case st.Hypothesis != nil:
		return tool(wf.ToolDesign, "Design a controlled trial for the hypothesis.", map[string]any{
			"hypothesis_id": st.Hypothesis.ID, "target_circuit_id": st.Hypothesis.CircuitID, "perturbation": st.Hypothesis.Perturbation})
	case st.Discovery != nil:
		return tool(wf.ToolDraft, "Draft a falsifiable hypothesis from the discovered causal evidence.", map[string]any{
			"circuit_id": st.Discovery.SelectedCircuitID, "evidence_ids": st.Discovery.EligibleIDs,
			"controls": []string{science.ConditionBaselineID, science.ConditionShamID}})
	}
	return tool(wf.ToolFind, "Search the circuit catalog for the behavior of interest.", map[string]any{"query": "<behavior or question>"})
}

func analysisIDs(st wf.SessionState) []string {
	ids := []string{}
	for _, a := range st.Analyses {
		ids = append(ids, a.ID)
	}
	return ids
}

// humanGate is the visible operator gate; no agent or tool can satisfy it.
func humanGate(st wf.SessionState) map[string]any {
	g := map[string]any{"id": "approve_experiment", "status": "not_applicable", "blocks_tool": wf.ToolRun,
		"agent_can_satisfy": false, "webmcp_tool_can_satisfy": false, "follow_up_execution": "not_authorized",
		"experiment_id": nil, "pending_protocol_hash": nil, "approved_protocol_hash": nil,
		"approved_seed_manifest_hash": nil, "approval_timestamp": nil, "operator_endpoint": nil}
	e := st.Experiment
	if e == nil {
		return g
	}
	g["experiment_id"] = e.ID
	g["operator_endpoint"] = "POST /operator/v1/flylab/experiments/" + e.ID + "/approve"
	switch e.Status {
	case wf.ExperimentAwaiting, wf.ExperimentRejected:
		g["status"], g["pending_protocol_hash"] = "required", e.ProtocolHash
		if e.Status == wf.ExperimentRejected {
			g["rejected_reason"] = e.Reason
		}
	case wf.ExperimentApproved, wf.ExperimentRan:
		g["status"], g["approved_protocol_hash"] = "satisfied", e.ProtocolHash
		g["approved_seed_manifest_hash"], g["approval_timestamp"] = e.SeedManifestHash, e.ApprovedAt
	}
	return g
}

func flatArtifacts(st wf.SessionState) map[string]any {
	a := map[string]any{"selected_circuit_id": nil, "discovered_evidence_ids": []string{},
		"hypothesis_eligible_evidence_ids": []string{}, "causal_evidence_ids_by_perturbation": map[string]any{},
		"hypothesis_id": nil, "experiment_id": nil, "approved_protocol_hash": nil, "approved_seed_manifest_hash": nil,
		"approval_timestamp": nil, "approval_binding_complete": false, "batch_id": nil,
		"analysis_ids": analysisIDs(st), "comparison_id": nil, "evidence_bundle_id": nil}
	if d := st.Discovery; d != nil {
		a["selected_circuit_id"], a["discovered_evidence_ids"] = d.SelectedCircuitID, d.EvidenceIDs
		a["hypothesis_eligible_evidence_ids"], a["causal_evidence_ids_by_perturbation"] = d.EligibleIDs, d.Causal
	}
	if st.Hypothesis != nil {
		a["hypothesis_id"] = st.Hypothesis.ID
	}
	if e := st.Experiment; e != nil {
		a["experiment_id"] = e.ID
		if e.Status == wf.ExperimentApproved || e.Status == wf.ExperimentRan {
			a["approved_protocol_hash"], a["approved_seed_manifest_hash"] = e.ProtocolHash, e.SeedManifestHash
			a["approval_timestamp"], a["approval_binding_complete"] = e.ApprovedAt, true
		}
	}
	if st.Batch != nil {
		a["batch_id"] = st.Batch.ID
	}
	if st.Comparison != nil {
		a["comparison_id"] = st.Comparison.ID
	}
	if st.Bundle != nil {
		a["evidence_bundle_id"] = st.Bundle.ID
	}
	return a
}
