package flylab

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"gorm.io/gorm"

	science "github.com/gatehouse/gatehouse/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

const annotationBoundary = "Caller-supplied title and note are untrusted administrative annotations, never scientific evidence."

// buildExport assembles the portable export: the hashed payload carries
// the whole lineage; the bundle metadata and time stay outside the hash.
func buildExport(ctx context.Context, call wf.ToolCall, in saveArgs, l lineage, db *gorm.DB) (models.Export, error) {
	circuit, err := science.CircuitByID(l.hypothesis.CircuitID)
	if err != nil {
		return models.Export{}, err
	}
	format, mission := models.FormatExperiment, any(nil)
	if in.Scope == "mission" {
		format = models.FormatMission
		if mission, err = missionRecord(ctx, db, call.Session); err != nil {
			return models.Export{}, err
		}
	}
	supporting, context := citedEvidence(l.hypothesis)
	model := science.Model()
	payload := map[string]any{
		"format": format, "scope": in.Scope, "mission": mission,
		"system": map[string]any{"generator": "gatehouse", "model_version": model.Version, "controller_version": model.Controller,
			"metric_method_version": model.MetricMethodVersion, "seed_policy_version": model.SeedPolicyVersion,
			"catalog_version": model.CatalogVersion},
		"annotation": map[string]any{"title": in.Title, "note": in.Note, "untrusted": true, "boundary": annotationBoundary},
		"sources":    sourceGroups(circuit, supporting, context),
		"evidence":   map[string]any{"supporting": supporting, "context": context},
		"circuit":    circuit, "hypothesis": l.hypothesis,
		"experiment": map[string]any{"id": l.design.Experiment.ID, "protocolHash": l.design.ProtocolHash,
			"seedManifestHash": l.design.SeedManifestHash, "conditions": l.design.Experiment.Conditions,
			"protocol": l.design.Experiment.Protocol, "seedManifest": l.design.SeedManifest, "provenance": l.design.Experiment.Provenance},
		"approval": l.approval, "batch": l.batch, "analyses": l.analyses, "comparison": l.comparison,
		"datasets": science.Catalog().DatasetVersions, "model": model,
	}
	payload["provenance_manifest"] = payloadManifest(l)
	// Round-trip so the hash covers exactly the bytes a reader will parse.
	raw, err := json.Marshal(payload)
	if err != nil {
		return models.Export{}, err
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return models.Export{}, err
	}
	hash, err := science.ContentHash(generic)
	if err != nil {
		return models.Export{}, err
	}
	title, source := "FlyLab evidence: "+circuit.Name+" "+l.hypothesis.Perturbation+" ("+in.Scope+")", "system"
	if in.Title != nil {
		title, source = *in.Title, "caller"
	}
	bundle := models.ExportBundle{ID: "bundle_" + hash[len("sha256:"):len("sha256:")+32], ArtifactType: "evidence_bundle",
		Title: title, TitleSource: source, Scope: in.Scope, Format: format, CreatedAt: time.Now().UTC().Format(time.RFC3339),
		PageSession: call.SessionID, HypothesisID: l.hypothesis.ID, ExperimentID: l.design.Experiment.ID,
		BatchIDs: in.BatchIDs, AnalysisIDs: in.AnalysisIDs, ComparisonID: in.ComparisonID, ManifestHash: hash,
		Provenance: science.ProvenanceLabels()}
	return models.Export{Schema: models.ExportSchemaName, SchemaVersion: models.ExportSchemaVersion, Bundle: bundle,
		Integrity: models.Integrity{ManifestHash: hash, Scope: "payload", Serialization: models.ExportSerialization,
			Assurance: "Detects accidental or unsigned alteration of the payload; it is not a signature."},
		Payload: generic}, nil
}

func citedEvidence(h HypothesisRecord) (supporting, context []science.EvidenceRecord) {
	supporting, context = []science.EvidenceRecord{}, []science.EvidenceRecord{}
	for _, id := range h.EvidenceIDs {
		e, err := science.EvidenceByID(id)
		if err != nil {
			continue
		}
		if slices.Contains(h.CausalEvidenceIDs, id) {
			supporting = append(supporting, e)
		} else {
			context = append(context, e)
		}
	}
	return supporting, context
}

func sourceGroups(c science.Circuit, supporting, context []science.EvidenceRecord) map[string]any {
	seen := map[string]bool{}
	group := func(ids []string) []science.Source {
		out := []science.Source{}
		for _, id := range ids {
			if s, err := science.SourceByID(id); err == nil && !seen[id] {
				seen[id] = true
				out = append(out, s)
			}
		}
		return out
	}
	idsOf := func(es []science.EvidenceRecord) []string {
		var ids []string
		for _, e := range es {
			ids = append(ids, e.SourceIDs...)
		}
		return ids
	}
	return map[string]any{"supporting": group(idsOf(supporting)), "context": group(idsOf(context)),
		"method": []science.Source{}, "catalog": group(c.SourceIDs)}
}

func payloadManifest(l lineage) map[string]any {
	entry := func(path, id, typ string, labels []string, parents []string) map[string]any {
		return map[string]any{"path": path, "artifact_id": id, "artifact_type": typ, "labels": labels, "parent_ids": parents}
	}
	entries := []any{
		entry("/hypothesis", l.hypothesis.ID, "hypothesis", []string{science.LabelAgentHypothesized}, l.hypothesis.ParentIDs),
		entry("/experiment", l.design.Experiment.ID, "experiment", []string{science.LabelAgentHypothesized}, []string{l.hypothesis.ID}),
		entry("/approval", l.approval.ID, "experiment_approval", []string{science.LabelAgentHypothesized}, []string{l.design.Experiment.ID}),
		entry("/batch", l.batch.ID, "simulation_batch", []string{science.LabelSimulationPredicted}, []string{l.design.Experiment.ID}),
		entry("/comparison", l.comparison.ID, "trial_comparison", []string{science.LabelSimulationPredicted}, l.comparison.AnalysisIDs),
	}
	for i, an := range l.analyses {
		entries = append(entries, entry("/analyses/"+itoa(i), an.ID, "behavior_analysis", []string{science.LabelSimulationPredicted}, []string{an.BatchID}))
	}
	return map[string]any{"schema_version": "flylab.provenance-manifest.v1", "entries": entries,
		"operational_paths": []string{"/annotation", "/system"}}
}

func itoa(i int) string { raw, _ := json.Marshal(i); return string(raw) }

// missionRecord preserves the goal (an untrusted annotation), the
// discovery decision, alternatives, exclusions and coverage gaps.
func missionRecord(ctx context.Context, db *gorm.DB, st wf.SessionState) (map[string]any, error) {
	if st.Discovery == nil {
		return nil, &science.Error{Code: science.CodeIncompleteProvenance, Message: "mission scope needs the session's discovery decision"}
	}
	raw, err := models.LoadToolResult(ctx, db, st.Discovery.ResultKey)
	if err != nil {
		return nil, err
	}
	var found map[string]any
	if err := json.Unmarshal(raw, &found); err != nil {
		return nil, err
	}
	return map[string]any{"goal": map[string]any{"text": st.Discovery.Goal, "untrusted": true, "boundary": annotationBoundary},
		"discovery_decision": found["discovery_decision"], "alternatives": found["candidate_circuits"],
		"exclusions": []any{}, "coverage_gaps": map[string]any{"coverage_warning": found["coverage_warning"],
			"embodiment_coverage": found["embodiment_coverage"]}}, nil
}
