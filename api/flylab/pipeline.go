package flylab

import (
	science "github.com/gatehouse/gatehouse/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

var pipelineSteps = []struct{ name, kind, boundary string }{
	{wf.ToolInspect, "tool", "Read-only; call first and after any interruption."},
	{wf.ToolFind, "tool", "Searches curated evidence; runs no simulation."},
	{wf.ToolDraft, "tool", "Creates an agent_hypothesized record; runs no simulation."},
	{wf.ToolDesign, "tool", "Creates a protocol awaiting operator approval."},
	{"human_approval", "human_gate", "An operator approves the exact protocol_hash outside the tool surface."},
	{wf.ToolRun, "tool", "Runs one approved experiment once; outputs are simulation_predicted."},
	{wf.ToolAnalyze, "tool", "Computes the motor map's five-metric panel; not wet-lab evidence."},
	{wf.ToolCompare, "tool", "Ranks conditions and proposes a follow-up that is never executed automatically."},
	{wf.ToolSave, "tool", "Appends the verified lineage to the evidence ledger."},
}

// pipeline lists the nine steps with their status for this state.
func pipeline(st wf.SessionState) []any {
	e := st.Experiment
	done := map[string]bool{
		wf.ToolInspect: true, wf.ToolFind: st.Discovery != nil, wf.ToolDraft: st.Hypothesis != nil,
		wf.ToolDesign: e != nil, "human_approval": e != nil && (e.Status == wf.ExperimentApproved || e.Status == wf.ExperimentRan),
		wf.ToolRun: st.Batch != nil, wf.ToolAnalyze: len(st.Analyses) > 0, wf.ToolCompare: st.Comparison != nil,
		wf.ToolSave: st.Bundle != nil,
	}
	next := nextAction(st)
	out := make([]any, 0, len(pipelineSteps))
	for _, step := range pipelineSteps {
		status := "blocked"
		switch {
		case st.Running == step.name:
			status = "running"
		case step.name == "human_approval" && e != nil && e.Status == wf.ExperimentAwaiting:
			status = "human_required"
		case next["name"] == step.name:
			status = "recommended"
		case step.name == wf.ToolInspect || step.name == wf.ToolFind:
			status = "available"
		case done[step.name]:
			status = "complete"
		}
		out = append(out, map[string]any{"id": step.name, "kind": step.kind, "status": status, "boundary": step.boundary})
	}
	return out
}

// artifactManifest is the compact scientific lineage of the session.
func artifactManifest(st wf.SessionState) map[string]any {
	rec := func(id, typ string, labels, parents, evidence []string) map[string]any {
		return map[string]any{"id": id, "artifact_type": typ, "provenance": labels, "parent_ids": nonNil(parents),
			"evidence_ids": nonNil(evidence), "source_ids": []string{}}
	}
	m := map[string]any{"model": rec(science.ModelVersion, "model", []string{science.LabelDerived}, nil, nil),
		"discovery_decision": nil, "selected_circuit": nil, "discovered_evidence": []any{}, "hypothesis": nil,
		"experiment": nil, "approval": nil, "batch": nil, "analyses": []any{}, "comparison": nil, "evidence_bundle": nil}
	if d := st.Discovery; d != nil {
		m["discovery_decision"] = rec(d.ID, "discovery_decision", []string{science.LabelDerived}, nil, d.EvidenceIDs)
		if c, err := science.CircuitByID(d.SelectedCircuitID); err == nil {
			m["selected_circuit"] = rec(c.ID, "circuit_selection", c.Provenance, []string{d.ID}, c.EvidenceIDs)
		}
		var ev []any
		for _, id := range d.EvidenceIDs {
			if e, err := science.EvidenceByID(id); err == nil {
				r := rec(e.ID, "evidence_record", []string{e.Provenance}, nil, nil)
				r["source_ids"] = e.SourceIDs
				ev = append(ev, r)
			}
		}
		if ev != nil {
			m["discovered_evidence"] = ev
		}
	}
	if h := st.Hypothesis; h != nil {
		m["hypothesis"] = rec(h.ID, "hypothesis", []string{science.LabelAgentHypothesized}, nil, h.EvidenceIDs)
	}
	if e := st.Experiment; e != nil {
		m["experiment"] = rec(e.ID, "experiment", []string{science.LabelAgentHypothesized}, []string{e.HypothesisID}, nil)
		if e.Status == wf.ExperimentApproved || e.Status == wf.ExperimentRan {
			m["approval"] = rec(e.ProtocolHash, "experiment_approval", []string{science.LabelAgentHypothesized}, []string{e.ID}, nil)
		}
	}
	if b := st.Batch; b != nil {
		m["batch"] = rec(b.ID, "simulation_batch", []string{science.LabelSimulationPredicted}, []string{b.ExperimentID}, nil)
	}
	var an []any
	for _, a := range st.Analyses {
		an = append(an, rec(a.ID, "behavior_analysis", science.AnalysisProvenance(), []string{a.BatchID}, nil))
	}
	if an != nil {
		m["analyses"] = an
	}
	if c := st.Comparison; c != nil {
		m["comparison"] = rec(c.ID, "trial_comparison", science.ComparisonProvenance(), c.AnalysisIDs, nil)
	}
	if b := st.Bundle; b != nil {
		// The bundle's own labels, derived from its payload at save.
		m["evidence_bundle"] = rec(b.ID, "evidence_bundle", nonNil(b.Labels), nil, nil)
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
