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
	// Round-trip so the manifest is derived from, and the hash covers,
	// exactly the bytes a reader will parse.
	generic, err := roundTrip(payload)
	if err != nil {
		return models.Export{}, err
	}
	manifest, labels, err := science.DeriveProvenance(generic, payloadManifestSpec)
	if err != nil {
		return models.Export{}, err
	}
	if generic["provenance_manifest"], err = roundTrip(manifest); err != nil {
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
		Provenance: labels}
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

// payloadManifestSpec names the export payload's paths. The labels of each
// come from the records themselves (science.DeriveProvenance), so a bundle
// claims exactly the labels of what it carries. Bibliographic source
// records, system metadata and the mission's search ranking are not
// evidence; caller text (title, note, goal, the search query) is untrusted.
var payloadManifestSpec = science.ManifestSpec{
	PathScope: "RFC 6901 JSON Pointer paths relative to the export payload. The empty path addresses the payload root.",
	ScientificPaths: []string{"/circuit", "/evidence", "/hypothesis", "/experiment", "/approval", "/batch", "/analyses",
		"/comparison", "/datasets", "/model", "/mission/discovery_decision", "/mission/coverage_gaps"},
	OperationalPaths: []string{"/format", "/scope", "/system", "/sources", "/approval/approved_at", "/approval/approved_by",
		"/mission/alternatives", "/mission/exclusions"},
	UntrustedPaths: []string{"/annotation", "/mission/goal", "/mission/discovery_decision/missionGoal",
		"/mission/discovery_decision/search"},
}

func roundTrip(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(raw, &out)
}

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
