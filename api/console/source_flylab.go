package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"go.temporal.io/sdk/converter"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/flylab"
	science "github.com/gatehouse/gatehouse/flylab"
	consolemodel "github.com/gatehouse/gatehouse/models/console"
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
// authority. Approve and reject call FlyLab's own decision operation, the
// one behind POST /operator/v1/flylab/experiments/:id/approve and /reject,
// which waits until the session shows the decision so the agent's next
// inspect_flylab_state sees it.
type flylabSource struct {
	db       *gorm.DB
	temporal flylabTemporal
	decider  flylabDecider
}

func newFlyLabSource(db *gorm.DB, t flylabTemporal, d flylabDecider) *flylabSource {
	return &flylabSource{db: db, temporal: t, decider: d}
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

// flylabDecider is FlyLab's operator decision: the same operation the REST
// endpoints POST /operator/v1/flylab/experiments/:id/approve and /reject run
// (api/flylab.Service.Approve and Reject).
type flylabDecider interface {
	Approve(ctx context.Context, operator, experimentID, protocolHash string) (flylab.Decision, error)
	Reject(ctx context.Context, operator, experimentID, shownHash, reason string) (flylab.Decision, error)
}

// Approve opens the gate for exactly hash.
func (f *flylabSource) Approve(ctx context.Context, op Operator, id, hash string) error {
	if f.decider == nil {
		return errors.New("flylab: no decision service")
	}
	_, err := f.decider.Approve(ctx, op.Name, id, hash)
	return decisionError(err)
}

// Reject closes the gate with a reason. The hash guards against rejecting
// a protocol the operator has not seen.
func (f *flylabSource) Reject(ctx context.Context, op Operator, id, hash, reason string) error {
	if f.decider == nil {
		return errors.New("flylab: no decision service")
	}
	_, err := f.decider.Reject(ctx, op.Name, id, hash, reason)
	return decisionError(err)
}

// decisionError maps FlyLab's refusal to the console's error kinds.
func decisionError(err error) error {
	var derr *flylab.DecisionError
	if !errors.As(err, &derr) {
		return err
	}
	switch derr.Status {
	case http.StatusNotFound:
		return fmt.Errorf("%w: %s", ErrNotFound, derr.Message)
	case http.StatusUnprocessableEntity:
		return fmt.Errorf("%w: %s", ErrInvalid, derr.Message)
	default:
		return fmt.Errorf("%w: %s", ErrConflict, derr.Message)
	}
}

// sessionState reads a session as FlyLab does: from its workflow while it
// exists, from the snapshot the workflow stored once it is gone.
func (f *flylabSource) sessionState(ctx context.Context, sessionID string) (flywf.SessionState, error) {
	return flylab.ReadSession(ctx, f.db, f.temporal, sessionID)
}

// sessionsReadTimeout bounds the state reads of the sessions page, so a
// Temporal outage slows the page by this much, not by every session's
// retry budget.
const sessionsReadTimeout = 5 * time.Second

// FlyLabSessions lists one page of sessions with the artifacts of their
// lineage, read from each session workflow (the authority) or, once it is
// gone, from its stored snapshot.
func (f *flylabSource) FlyLabSessions(ctx context.Context, filter SessionFilter, p Page) (ListPage[FlyLabSession], error) {
	ctx, cancel := context.WithTimeout(ctx, sessionsReadTimeout)
	defer cancel()
	rows, next, err := consolemodel.ListFlyLabSessions(ctx, f.db, filter, p)
	if err != nil {
		return ListPage[FlyLabSession]{}, err
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
			s := FlyLabSession{ID: r.ID, OwnerKey: r.OwnerCredentialID, OwnerName: r.OwnerName, Gate: r.Gate,
				CreatedAt: r.CreatedAt, UpdatedAt: r.CreatedAt, WorkflowID: flywf.SessionWorkflowID(r.ID), Status: "owner " + r.OwnerName}
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
	page := ListPage[FlyLabSession]{Items: out}
	if next != nil {
		page.Next = next.String()
	}
	return page, nil
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
