package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.temporal.io/sdk/converter"
	"gorm.io/gorm"

	science "github.com/gatehouse/gatehouse/flylab"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	flywf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// flylabTemporal is the part of the Temporal client the FlyLab adapter uses.
type flylabTemporal interface {
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
	QueryWorkflow(ctx context.Context, workflowID, runID, queryType string, args ...any) (converter.EncodedValue, error)
}

// flylabSource adapts FlyLab (#4) to the console. Records come from
// models/flylab (the mirror of the workflows, written by activities); the
// gate is the experiment workflow (flylab-experiment/<id>), which is the
// authority. Approve and reject send that workflow the same signal, with
// the same payload, as POST /operator/v1/flylab/experiments/:id/approve and
// /reject, and wait the same way until the session shows the decision, so
// the agent's next inspect_flylab_state sees it.
type flylabSource struct {
	db       *gorm.DB
	temporal flylabTemporal
	// wait bounds how long a decision waits to be mirrored.
	wait time.Duration
}

func newFlyLabSource(db *gorm.DB, t flylabTemporal) *flylabSource {
	return &flylabSource{db: db, temporal: t, wait: 15 * time.Second}
}

// PendingApprovals lists experiments at the operator gate, oldest first.
func (f *flylabSource) PendingApprovals(ctx context.Context) ([]PendingApproval, error) {
	rows, err := flymodels.ListExperiments(ctx, f.db, flymodels.StatusAwaitingApproval, 200)
	if err != nil {
		return nil, err
	}
	slices.Reverse(rows)
	out := make([]PendingApproval, 0, len(rows))
	for _, r := range rows {
		out = append(out, f.pending(ctx, r))
	}
	return out, nil
}

// pending renders one stored design for the operator.
func (f *flylabSource) pending(ctx context.Context, r flymodels.Experiment) PendingApproval {
	a := PendingApproval{ExperimentID: r.ID, SessionID: r.SessionID, HypothesisID: r.HypothesisID,
		ProtocolHash: r.ProtocolHash, RequestedAt: r.CreatedAt, WorkflowID: flywf.ExperimentWorkflowID(r.ID)}
	if h, err := flymodels.Find[flymodels.Hypothesis](ctx, f.db, r.SessionID, r.HypothesisID); err == nil {
		var body struct {
			Claim string `json:"claim"`
		}
		if json.Unmarshal([]byte(h.Body), &body) == nil {
			a.Hypothesis = body.Claim
		}
	}
	var d science.Design
	if err := json.Unmarshal([]byte(r.Design), &d); err != nil {
		a.ProtocolJSON = "The stored design could not be read: " + err.Error()
		return a
	}
	p := d.Experiment.Protocol
	a.TargetCircuitID, a.Replicates, a.ModelAssumptions = p.TargetCircuitID, p.Replicates, p.Assumptions
	a.Timing = Timing{OnsetMS: p.OnsetMs, DurationMS: p.DurationMs, TrialDurationMS: p.TrialDurationMs}
	for _, c := range p.Conditions {
		cond := Condition{ID: c.ID, Label: c.Label, Perturbation: c.Kind, Laterality: c.Laterality, ActivationLevel: c.NominalControlLevel}
		if c.Kind == science.ConditionKindPerturbation {
			cond.Perturbation = c.Kind + " (" + p.Perturbation + ")"
		}
		for _, dd := range p.DriveDerivations {
			if dd.ConditionID != c.ID {
				continue
			}
			cond.Derivation = dd.Formula
			for _, ch := range dd.Channels {
				cond.Drives = append(cond.Drives, Drive{Channel: ch.Channel, Effective: ch.Effective})
			}
		}
		a.Conditions = append(a.Conditions, cond)
	}
	for _, sc := range d.SeedManifest.Conditions {
		for _, rep := range sc.Replicates {
			if !slices.Contains(a.Seeds, rep.Seed) {
				a.Seeds = append(a.Seeds, rep.Seed)
			}
		}
	}
	full := map[string]any{"protocol": p, "seed_manifest": d.SeedManifest, "seed_manifest_hash": d.SeedManifestHash,
		"model": d.Experiment.Model, "motor_map": d.Experiment.MotorMap}
	if raw, err := json.MarshalIndent(full, "", "  "); err == nil {
		a.ProtocolJSON = string(raw)
	}
	return a
}

// Approve opens the gate for exactly hash.
func (f *flylabSource) Approve(ctx context.Context, op Operator, id, hash string) error {
	row, err := f.waiting(ctx, id)
	if err != nil {
		return err
	}
	if row.ProtocolHash != hash {
		return fmt.Errorf("%w: the protocol changed since the page was shown (its hash is now %s)", ErrConflict, row.ProtocolHash)
	}
	return f.decide(ctx, row, flywf.ApproveSignal, flywf.Approve{ProtocolHash: hash, Operator: op.Name}, flymodels.StatusApproved)
}

// Reject closes the gate with a reason. The hash guards against rejecting
// a protocol the operator has not seen.
func (f *flylabSource) Reject(ctx context.Context, op Operator, id, hash, reason string) error {
	row, err := f.waiting(ctx, id)
	if err != nil {
		return err
	}
	if row.ProtocolHash != hash {
		return fmt.Errorf("%w: the protocol changed since the page was shown (its hash is now %s)", ErrConflict, row.ProtocolHash)
	}
	return f.decide(ctx, row, flywf.RejectSignal, flywf.Reject{Reason: reason, Operator: op.Name}, flymodels.StatusRejected)
}

// waiting loads an experiment still at the gate.
func (f *flylabSource) waiting(ctx context.Context, id string) (flymodels.Experiment, error) {
	row, err := flymodels.ExperimentByID(ctx, f.db, id)
	if errors.Is(err, flymodels.ErrNotFound) {
		return row, ErrNotFound
	}
	if err != nil {
		return row, err
	}
	if row.Status != flymodels.StatusAwaitingApproval {
		return row, fmt.Errorf("%w: the experiment is already %s", ErrConflict, row.Status)
	}
	return row, nil
}

// decide signals the experiment workflow and waits until the decision is
// recorded and the session mirrors it.
func (f *flylabSource) decide(ctx context.Context, row flymodels.Experiment, signal string, arg any, want string) error {
	if f.temporal == nil {
		return errors.New("flylab: no Temporal client")
	}
	if err := f.temporal.SignalWorkflow(ctx, flywf.ExperimentWorkflowID(row.ID), "", signal, arg); err != nil {
		return fmt.Errorf("%w: the experiment workflow is not waiting for a decision", ErrConflict)
	}
	deadline := time.Now().Add(f.wait)
	for time.Now().Before(deadline) {
		cur, err := flymodels.ExperimentByID(ctx, f.db, row.ID)
		if err == nil && cur.Status == want && f.sessionShows(ctx, row, want) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil // signalled; the mirror catches up on its own
}

// sessionShows reports whether the session no longer shows the experiment
// as waiting (or cannot be asked).
func (f *flylabSource) sessionShows(ctx context.Context, row flymodels.Experiment, want string) bool {
	st, err := f.sessionState(ctx, row.SessionID)
	return err != nil || st.Experiment == nil || st.Experiment.ID != row.ID || st.Experiment.Status == want
}

func (f *flylabSource) sessionState(ctx context.Context, sessionID string) (flywf.SessionState, error) {
	var st flywf.SessionState
	if f.temporal == nil {
		return st, errors.New("flylab: no Temporal client")
	}
	v, err := f.temporal.QueryWorkflow(ctx, flywf.SessionWorkflowID(sessionID), "", flywf.StateQuery)
	if err != nil {
		return st, err
	}
	return st, v.Get(&st)
}

// FlyLabSessions lists page sessions with the artifacts of their lineage,
// read from each session workflow (the authority).
func (f *flylabSource) FlyLabSessions(ctx context.Context) ([]FlyLabSession, error) {
	rows, err := flymodels.ListSessions(ctx, f.db, 50)
	if err != nil {
		return nil, err
	}
	out := make([]FlyLabSession, len(rows))
	// Each session's state is a query of its workflow; ask a few at a time.
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, r := range rows {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			s := FlyLabSession{ID: r.ID, UpdatedAt: r.CreatedAt, WorkflowID: flywf.SessionWorkflowID(r.ID), Status: "owner " + r.OwnerName}
			if st, err := f.sessionState(ctx, r.ID); err == nil {
				s.StateRevision, s.Artifacts = st.Revision, sessionArtifacts(st)
				if st.Experiment != nil {
					s.Status = "experiment " + st.Experiment.Status
				}
			} else {
				s.Status = "state unavailable"
			}
			out[i] = s
		}()
	}
	wg.Wait()
	return out, nil
}

// sessionArtifacts lists a session's lineage as manifest rows.
func sessionArtifacts(st flywf.SessionState) []Artifact {
	var out []Artifact
	add := func(id, typ, summary string, labels ...string) {
		if id != "" {
			out = append(out, Artifact{ID: id, Type: typ, Summary: summary, Labels: labels})
		}
	}
	if d := st.Discovery; d != nil {
		add(d.ID, "discovery_decision", "selected "+d.SelectedCircuitID, science.LabelDerived)
	}
	if h := st.Hypothesis; h != nil {
		add(h.ID, "hypothesis", h.Perturbation+" → "+h.Behavior, science.LabelAgentHypothesized)
	}
	if e := st.Experiment; e != nil {
		add(e.ID, "experiment", e.Status+" · "+e.ProtocolHash, science.LabelAgentHypothesized)
	}
	if b := st.Batch; b != nil {
		add(b.ID, "simulation_batch", b.RunContentHash, science.LabelSimulationPredicted)
	}
	for _, a := range st.Analyses {
		add(a.ID, "behavior_analysis", "of "+a.BatchID, science.LabelSimulationPredicted)
	}
	if c := st.Comparison; c != nil {
		add(c.ID, "trial_comparison", "", science.LabelSimulationPredicted)
	}
	if b := st.Bundle; b != nil {
		add(b.ID, "evidence_bundle", b.ManifestHash)
	}
	return out
}
