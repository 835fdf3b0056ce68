package flylab

import (
	"slices"

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
	case wf.ExperimentRevoked:
		return []any{map[string]any{"id": "approval_lapsed", "blocks": wf.ToolRun,
			"reason": "The experiment's gate closed without a run (" + e.Reason + "). Design the trial again for a new approval."}}
	}
	return []any{}
}

// comparableAnalysisIDs is every analysis of the session, of any batch,
// that compare_fly_trials accepts.
func comparableAnalysisIDs(st wf.SessionState) []string {
	ids := []string{}
	for _, a := range st.AnalysisHistory {
		ids = append(ids, a.ID)
	}
	for _, a := range st.Analyses {
		if !slices.Contains(ids, a.ID) {
			ids = append(ids, a.ID)
		}
	}
	return ids
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
		"approved_seed_manifest_hash": nil, "approval_timestamp": nil, "operator_endpoint": nil,
		"expires_at": nil, "expiry_policy": approvalExpiryPolicy}
	e := st.Experiment
	if e == nil {
		return g
	}
	g["experiment_id"] = e.ID
	if e.ExpiresAt != "" && (e.Status == wf.ExperimentAwaiting || e.Status == wf.ExperimentApproved) {
		g["expires_at"] = e.ExpiresAt
	}
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
	case wf.ExperimentRevoked:
		g["status"], g["revoked_reason"] = "required", e.Reason
	}
	return g
}

// approvalExpiryPolicy states the 30-day bounds the experiment workflow
// enforces on the gate.
const approvalExpiryPolicy = "An experiment waits at most 30 days for the operator, and an approval is usable for 30 days; " +
	"then the gate closes (expires_at) and the trial must be designed again for a new approval."

func flatArtifacts(st wf.SessionState) map[string]any {
	a := map[string]any{"selected_circuit_id": nil, "discovered_evidence_ids": []string{},
		"hypothesis_eligible_evidence_ids": []string{}, "causal_evidence_ids_by_perturbation": map[string]any{},
		"hypothesis_id": nil, "experiment_id": nil, "approved_protocol_hash": nil, "approved_seed_manifest_hash": nil,
		"approval_timestamp": nil, "approval_binding_complete": false, "batch_id": nil,
		"analysis_ids": analysisIDs(st), "comparable_analysis_ids": comparableAnalysisIDs(st),
		"comparison_id": nil, "evidence_bundle_id": nil}
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
