package flylab

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"

	science "github.com/gatehouse/gatehouse/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

type runArgs struct {
	ExperimentID string `json:"experiment_id"`
	Hash         string `json:"approved_protocol_hash"`
	OperationID  string `json:"operation_id"`
}

// Simulate runs run_fly_simulation: it re-hashes the stored experiment and
// approval record, simulates with a heartbeat per finished run, and
// commits the batch once, keyed by the operation. A cancellation before
// the commit publishes nothing.
func (a *Activities) Simulate(ctx context.Context, call wf.ToolCall) (wf.ToolEffect, error) {
	var in runArgs
	if err := decodeArgs(call.Args, &in); err != nil {
		return fail(wf.CodeInvalidInput, "arguments are not a valid run_fly_simulation request", nil), nil
	}
	if b, err := models.BatchByOperation(ctx, a.DB, call.OperationKey); err == nil {
		return batchEffect(b.ID, b.ExperimentID, b.RunContentHash), nil
	} else if !errors.Is(err, models.ErrNotFound) {
		return wf.ToolEffect{}, err
	}
	row, err := models.Find[models.Experiment](ctx, a.DB, call.SessionID, in.ExperimentID)
	if errors.Is(err, models.ErrNotFound) {
		return fail(wf.CodeNotFound, "experiment "+in.ExperimentID+" is not in this session", nil), nil
	} else if err != nil {
		return wf.ToolEffect{}, err
	}
	design, err := loadDesign(row)
	if err != nil {
		return effectOf(err)
	}
	approval, err := checkApproval(row, design)
	if err != nil {
		return effectOf(err)
	}
	if in.Hash != approval.ProtocolHash {
		return fail(wf.CodeEvidenceMismatch, "approved_protocol_hash does not match the approval record",
			map[string]any{"approved_protocol_hash": approval.ProtocolHash}), nil
	}
	var progress [2]int
	batch, err := science.Simulate(design.Experiment.Protocol, design.SeedManifest, func(done, total int) error {
		progress = [2]int{done, total}
		activity.RecordHeartbeat(ctx, progress)
		return ctx.Err()
	})
	// Encoding and storing a large batch takes seconds under load: beat
	// between the phases so the heartbeat timeout never takes a finished
	// simulation for a dead worker (and a drain can wait it out).
	beat := func() { activity.RecordHeartbeat(ctx, progress) }
	if err != nil {
		if ctx.Err() != nil {
			return wf.ToolEffect{}, ctx.Err()
		}
		return effectOf(err)
	}
	beat()
	data, err := toMap(batch)
	if err != nil {
		return wf.ToolEffect{}, err
	}
	beat()
	data["approval"] = approval
	data["artifact_type"] = "simulation_batch"
	data["parent_ids"] = []string{row.ID, approval.ID}
	if err := models.PutToolResult(ctx, a.DB, call.ResultKey, call.SessionID, call.Tool, data); err != nil {
		return wf.ToolEffect{}, err
	}
	beat()
	body, err := toJSON(batch)
	if err != nil {
		return wf.ToolEffect{}, err
	}
	beat()
	if err := models.CreateOnce(ctx, a.DB, &models.Batch{ID: batch.ID, SessionID: call.SessionID, ExperimentID: row.ID,
		OperationKey: call.OperationKey, RunContentHash: batch.RunContentHash, Body: body, Staged: call.Stage,
		CreatedAt: time.Now().UTC()}); err != nil {
		return wf.ToolEffect{}, err
	}
	return batchEffect(batch.ID, row.ID, batch.RunContentHash), nil
}

func batchEffect(id, experimentID, contentHash string) wf.ToolEffect {
	return wf.ToolEffect{CreatedArtifactIDs: []string{id},
		Patch: wf.Patch{Batch: &wf.BatchRef{ID: id, ExperimentID: experimentID, RunContentHash: contentHash}}}
}

// loadBatch loads a session's committed batch and checks its stored hash.
func (a *Activities) loadBatch(ctx context.Context, sessionID, id string) (science.Batch, *wf.ToolFailure, error) {
	var b science.Batch
	row, err := models.Find[models.Batch](ctx, a.DB, sessionID, id)
	if errors.Is(err, models.ErrNotFound) {
		return b, &wf.ToolFailure{Code: wf.CodeNotFound, Message: "batch " + id + " is not in this session",
			Details: map[string]any{"batch_id": id}}, nil
	} else if err != nil {
		return b, nil, err
	}
	if err := decodeArgs([]byte(row.Body), &b); err != nil {
		return b, nil, err
	}
	if b.RunContentHash != row.RunContentHash {
		return b, &wf.ToolFailure{Code: wf.CodeEvidenceMismatch, Message: "stored batch hash was altered",
			Details: map[string]any{"expected": row.RunContentHash}}, nil
	}
	return b, nil, nil
}
