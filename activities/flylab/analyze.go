package flylab

import (
	"context"
	"errors"
	"slices"
	"time"

	"go.temporal.io/sdk/activity"

	science "github.com/gatehouse/gatehouse/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

type analyzeArgs struct {
	BatchID string   `json:"batch_id"`
	Metrics []string `json:"metrics"`
}

// Analyze runs analyze_fly_behavior on the session's committed batch. It
// heartbeats at each phase, so a worker lost mid-analysis is detected by
// the heartbeat timeout and the attempt retried; the analysis row is keyed
// by its content id, so the retry stores nothing twice.
func (a *Activities) Analyze(ctx context.Context, call wf.ToolCall) (wf.ToolEffect, error) {
	var in analyzeArgs
	if err := decodeArgs(call.Args, &in); err != nil {
		return fail(wf.CodeInvalidInput, "arguments are not a valid analyze_fly_behavior request", nil), nil
	}
	if call.Session.Batch == nil || call.Session.Batch.ID != in.BatchID {
		return fail(wf.CodeNotFound, "batch "+in.BatchID+" is not this session's current batch",
			map[string]any{"batch_id": in.BatchID}), nil
	}
	heartbeat(ctx, "loading_batch")
	batch, f, err := a.loadBatch(ctx, call.SessionID, in.BatchID)
	if err != nil || f != nil {
		return wf.ToolEffect{Failure: f}, err
	}
	heartbeat(ctx, "analyzing")
	res, err := science.Analyze(batch, in.Metrics)
	if err != nil {
		return effectOf(err)
	}
	heartbeat(ctx, "storing")
	body, err := toJSON(res.Analysis)
	if err != nil {
		return wf.ToolEffect{}, err
	}
	if err := models.CreateOnce(ctx, a.DB, &models.Analysis{ID: res.Analysis.ID, SessionID: call.SessionID,
		BatchID: batch.ID, Body: body, CreatedAt: time.Now().UTC()}); err != nil {
		return wf.ToolEffect{}, err
	}
	if err := models.PutToolResult(ctx, a.DB, call.ResultKey, call.SessionID, call.Tool, res); err != nil {
		return wf.ToolEffect{}, err
	}
	return wf.ToolEffect{CreatedArtifactIDs: []string{res.Analysis.ID},
		Patch: wf.Patch{Analysis: &wf.AnalysisRef{ID: res.Analysis.ID, BatchID: batch.ID}}}, nil
}

type compareArgs struct {
	AnalysisIDs     []string `json:"analysis_ids"`
	ObjectiveMetric string   `json:"objective_metric"`
	Objective       string   `json:"objective"`
}

// Compare runs compare_fly_trials over saved analyses of this session, of
// any of its batches: a follow-up is ranked against the original. The
// science core refuses analyses with different panels or methods
// (INCOMPARABLE_ANALYSES).
func (a *Activities) Compare(ctx context.Context, call wf.ToolCall) (wf.ToolEffect, error) {
	var in compareArgs
	if err := decodeArgs(call.Args, &in); err != nil {
		return fail(wf.CodeInvalidInput, "arguments are not a valid compare_fly_trials request", nil), nil
	}
	analyses, f, err := a.loadAnalyses(ctx, call, in.AnalysisIDs)
	if err != nil || f != nil {
		return wf.ToolEffect{Failure: f}, err
	}
	res, err := science.Compare(analyses, in.ObjectiveMetric, in.Objective)
	if err != nil {
		return effectOf(err)
	}
	body, err := toJSON(res.Comparison)
	if err != nil {
		return wf.ToolEffect{}, err
	}
	if err := models.CreateOnce(ctx, a.DB, &models.Comparison{ID: res.Comparison.ID, SessionID: call.SessionID,
		Body: body, CreatedAt: time.Now().UTC()}); err != nil {
		return wf.ToolEffect{}, err
	}
	if err := models.PutToolResult(ctx, a.DB, call.ResultKey, call.SessionID, call.Tool, res); err != nil {
		return wf.ToolEffect{}, err
	}
	return wf.ToolEffect{CreatedArtifactIDs: []string{res.Comparison.ID, res.Comparison.Proposal.ID},
		Patch: wf.Patch{Comparison: &wf.ComparisonRef{ID: res.Comparison.ID, AnalysisIDs: res.Comparison.AnalysisIDs}}}, nil
}

// loadAnalyses loads analyses the session saved: the current lineage's or
// any earlier one's (its analysis history).
func (a *Activities) loadAnalyses(ctx context.Context, call wf.ToolCall, ids []string) ([]science.Analysis, *wf.ToolFailure, error) {
	var out []science.Analysis
	isID := func(id string) func(wf.AnalysisRef) bool { return func(r wf.AnalysisRef) bool { return r.ID == id } }
	for _, id := range ids {
		known := slices.ContainsFunc(call.Session.Analyses, isID(id)) || slices.ContainsFunc(call.Session.AnalysisHistory, isID(id))
		row, err := models.Find[models.Analysis](ctx, a.DB, call.SessionID, id)
		if !known || errors.Is(err, models.ErrNotFound) {
			return nil, &wf.ToolFailure{Code: wf.CodeNotFound, Message: "analysis " + id + " is not an analysis of this session",
				Details: map[string]any{"analysis_id": id}}, nil
		} else if err != nil {
			return nil, nil, err
		}
		var an science.Analysis
		if err := decodeArgs([]byte(row.Body), &an); err != nil {
			return nil, nil, err
		}
		out = append(out, an)
	}
	return out, nil, nil
}

// heartbeat records progress when ctx is an activity's (unit tests call
// activities with a plain context).
func heartbeat(ctx context.Context, phase string) {
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx, phase)
	}
}
