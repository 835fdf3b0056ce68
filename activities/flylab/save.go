package flylab

import (
	"context"
	"errors"
	"slices"
	"time"

	science "github.com/gatehouse/gatehouse/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

type saveArgs struct {
	Scope        string   `json:"scope"`
	Title        *string  `json:"title"`
	HypothesisID string   `json:"hypothesis_id"`
	ExperimentID string   `json:"experiment_id"`
	BatchIDs     []string `json:"batch_ids"`
	AnalysisIDs  []string `json:"analysis_ids"`
	ComparisonID string   `json:"comparison_id"`
	Note         *string  `json:"note"`
}

// lineage is everything a bundle carries, loaded and re-verified.
type lineage struct {
	hypothesis HypothesisRecord
	design     science.Design
	approval   ApprovalRecord
	batch      science.Batch
	analyses   []science.Analysis
	comparison science.Comparison
}

// SaveEvidence runs save_fly_evidence: it checks the cited lineage is the
// session's, re-hashes experiment, approval and batch, and appends the
// export to the evidence ledger once per operation.
func (a *Activities) SaveEvidence(ctx context.Context, call wf.ToolCall) (wf.ToolEffect, error) {
	var in saveArgs
	if err := decodeArgs(call.Args, &in); err != nil {
		return fail(wf.CodeInvalidInput, "arguments are not a valid save_fly_evidence request", nil), nil
	}
	if b, err := models.BundleByOperation(ctx, a.DB, call.OperationKey); err == nil {
		stored, err := models.DecodeExport(b.Export)
		if err != nil {
			return wf.ToolEffect{}, err
		}
		return bundleEffect(b.ID, b.ManifestHash, stored.Bundle.Provenance), nil
	} else if !errors.Is(err, models.ErrNotFound) {
		return wf.ToolEffect{}, err
	}
	if f := checkLineageRefs(call.Session, in); f != nil {
		return wf.ToolEffect{Failure: f}, nil
	}
	l, f, err := a.loadLineage(ctx, call, in)
	if err != nil || f != nil {
		return wf.ToolEffect{Failure: f}, err
	}
	exp, err := buildExport(ctx, call, in, l, a.DB)
	if err != nil {
		return effectOf(err)
	}
	body, err := toJSON(exp)
	if err != nil {
		return wf.ToolEffect{}, err
	}
	if err := models.CreateOnce(ctx, a.DB, &models.EvidenceBundle{ID: exp.Bundle.ID, SessionID: call.SessionID,
		OperationKey: call.OperationKey, ManifestHash: exp.Integrity.ManifestHash, Export: body, Staged: call.Stage,
		CreatedAt: time.Now().UTC()}); err != nil {
		return wf.ToolEffect{}, err
	}
	data := map[string]any{"bundle": exp.Bundle, "evidence_export": exp, "export_media_type": models.ExportMediaType,
		"export_schema_url": a.SchemaURL, "export_filename": exp.Bundle.ID + ".flylab-evidence.json",
		"local_reference": "/v1/flylab/evidence/" + exp.Bundle.ID, "storage_scope": "gatehouse_evidence_ledger"}
	if err := models.PutToolResult(ctx, a.DB, call.ResultKey, call.SessionID, call.Tool, data); err != nil {
		return wf.ToolEffect{}, err
	}
	return bundleEffect(exp.Bundle.ID, exp.Integrity.ManifestHash, exp.Bundle.Provenance), nil
}

func bundleEffect(id, hash string, labels []string) wf.ToolEffect {
	return wf.ToolEffect{CreatedArtifactIDs: []string{id},
		Patch: wf.Patch{Bundle: &wf.BundleRef{ID: id, ManifestHash: hash, Labels: labels}}}
}

// checkLineageRefs demands the cited ids are the session's current
// lineage, and that the comparison's analyses are all cited.
func checkLineageRefs(st wf.SessionState, in saveArgs) *wf.ToolFailure {
	notFound := func(what, id string) *wf.ToolFailure {
		return &wf.ToolFailure{Code: wf.CodeNotFound, Message: what + " " + id + " is not in this session's current lineage",
			Details: map[string]any{"field": what, "id": id}}
	}
	switch {
	case st.Experiment == nil || st.Experiment.ID != in.ExperimentID:
		return notFound("experiment_id", in.ExperimentID)
	case st.Experiment.HypothesisID != in.HypothesisID:
		return notFound("hypothesis_id", in.HypothesisID)
	case st.Batch == nil || st.Batch.ID != in.BatchIDs[0]:
		return notFound("batch_ids", in.BatchIDs[0])
	case st.Comparison == nil || st.Comparison.ID != in.ComparisonID:
		return notFound("comparison_id", in.ComparisonID)
	}
	for _, id := range in.AnalysisIDs {
		if !slices.ContainsFunc(st.Analyses, func(r wf.AnalysisRef) bool { return r.ID == id }) {
			return notFound("analysis_ids", id)
		}
	}
	var missing []string
	for _, id := range st.Comparison.AnalysisIDs {
		if !slices.Contains(in.AnalysisIDs, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return &wf.ToolFailure{Code: science.CodeIncompleteProvenance,
			Message: "the comparison cites analyses the bundle would not carry; include every compared analysis",
			Details: map[string]any{"missing_analysis_ids": missing}}
	}
	return nil
}

func (a *Activities) loadLineage(ctx context.Context, call wf.ToolCall, in saveArgs) (lineage, *wf.ToolFailure, error) {
	var l lineage
	hyp, err := models.Find[models.Hypothesis](ctx, a.DB, call.SessionID, in.HypothesisID)
	if err != nil {
		return l, nil, err
	}
	if err := decodeArgs([]byte(hyp.Body), &l.hypothesis); err != nil {
		return l, nil, err
	}
	row, err := models.Find[models.Experiment](ctx, a.DB, call.SessionID, in.ExperimentID)
	if err != nil {
		return l, nil, err
	}
	if l.design, err = loadDesign(row); err == nil {
		l.approval, err = checkApproval(row, l.design)
	}
	if err == nil {
		var f *wf.ToolFailure
		if l.batch, f, err = a.loadBatch(ctx, call.SessionID, in.BatchIDs[0]); f != nil || err != nil {
			return l, f, err
		}
		err = science.VerifyBatch(l.batch)
	}
	if err == nil && l.batch.ExperimentID != row.ID {
		err = &science.Error{Code: science.CodeEvidenceMismatch, Message: "batch does not belong to the experiment"}
	}
	if err != nil {
		f, ierr := domainFailure(err)
		return l, f, ierr
	}
	analyses, f, err := a.loadAnalyses(ctx, call, in.AnalysisIDs)
	if err != nil || f != nil {
		return l, f, err
	}
	l.analyses = analyses
	for _, an := range analyses {
		if an.BatchID != l.batch.ID || an.BatchRunContentHash != l.batch.RunContentHash {
			return l, &wf.ToolFailure{Code: science.CodeEvidenceMismatch, Message: "analysis " + an.ID + " is not of the saved batch",
				Details: map[string]any{"analysis_id": an.ID}}, nil
		}
	}
	crow, err := models.Find[models.Comparison](ctx, a.DB, call.SessionID, in.ComparisonID)
	if err != nil {
		return l, nil, err
	}
	return l, nil, decodeArgs([]byte(crow.Body), &l.comparison)
}
