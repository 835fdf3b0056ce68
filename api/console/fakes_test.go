package console

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// The fakes hold their data in memory and record every action, so tests
// can tell an action that ran from one that was refused before it ran.

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

const (
	hashA = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	hashB = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

type fakeApprovals struct {
	mu       sync.Mutex
	pending  []PendingApproval
	approved map[string]string // experiment -> hash
	rejected map[string]string // experiment -> reason
	by       []Operator
}

func newFakeApprovals() *fakeApprovals {
	return &fakeApprovals{
		pending: []PendingApproval{{
			ExperimentID: "exp_1", SessionID: "page_session_1", HypothesisID: "hyp_1",
			Hypothesis:   "Activating MDN drives backward walking",
			ProtocolHash: hashA, TargetCircuitID: "circuit_mdn",
			Conditions: []Condition{
				{ID: "condition_baseline", Label: "Baseline", Perturbation: "none", Laterality: "bilateral"},
				{ID: "condition_sham", Label: "Sham", Perturbation: "sham", Laterality: "bilateral"},
				{ID: "condition_activate", Label: "Activate", Perturbation: "activate", Laterality: "bilateral",
					ActivationLevel: 0.8, Drives: []Drive{{Channel: "MDN_left", Effective: 0.64}}, Derivation: "0.8 × gain 0.8"},
			},
			Timing:     Timing{OnsetMS: 500, DurationMS: 1000, TrialDurationMS: 3000},
			Replicates: 3, Seeds: []int64{11, 12, 13},
			ModelAssumptions: []string{"Rate-based descending drive", "Flat arena"},
			ProtocolJSON:     "{\n  \"replicates\": 3\n}",
			RequestedAt:      t0, WorkflowID: "flylab-experiment/exp_1",
		}},
		approved: map[string]string{}, rejected: map[string]string{},
	}
}

func (f *fakeApprovals) PendingApprovals(context.Context) ([]PendingApproval, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]PendingApproval(nil), f.pending...), nil
}

func (f *fakeApprovals) take(id, hash string) error {
	for i, p := range f.pending {
		if p.ExperimentID != id {
			continue
		}
		if p.ProtocolHash != hash {
			return fmt.Errorf("%w: the protocol changed since the page was shown", ErrConflict)
		}
		f.pending = append(f.pending[:i], f.pending[i+1:]...)
		return nil
	}
	return ErrNotFound
}

func (f *fakeApprovals) Approve(_ context.Context, op Operator, id, hash string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.take(id, hash); err != nil {
		return err
	}
	f.approved[id], f.by = hash, append(f.by, op)
	return nil
}

func (f *fakeApprovals) Reject(_ context.Context, op Operator, id, hash, reason string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.take(id, hash); err != nil {
		return err
	}
	f.rejected[id], f.by = reason, append(f.by, op)
	return nil
}

func (f *fakeApprovals) decisions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.approved) + len(f.rejected)
}

type fakeReviews struct {
	mu        sync.Mutex
	items     []ReviewRequest
	submitted map[string]Verdict
}

func newFakeReviews() *fakeReviews {
	return &fakeReviews{items: []ReviewRequest{{
		ID: "rr_1", ProjectID: "proj_1", TargetType: "experiment", TargetID: "rexp_7",
		Reason: "Human check before running", CreatedAt: t0, WorkflowID: "research-experiment/rexp_7",
		Artifacts: []Artifact{{ID: "art_plan", Type: "design_doc", Title: "Experiment plan", Summary: "Ablate layer 3"}},
	}}, submitted: map[string]Verdict{}}
}

func (f *fakeReviews) PendingReviews(context.Context) ([]ReviewRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ReviewRequest(nil), f.items...), nil
}

func (f *fakeReviews) SubmitVerdict(_ context.Context, _ Operator, id string, v Verdict) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, r := range f.items {
		if r.ID == id {
			f.items = append(f.items[:i], f.items[i+1:]...)
			f.submitted[id] = v
			return nil
		}
	}
	return ErrNotFound
}

type fakeRollouts struct {
	mu        sync.Mutex
	detail    RolloutDetail
	cancelled map[string]string
}

func newFakeRollouts() *fakeRollouts {
	on := true
	row := RolloutRow{ID: "ro_1", State: "leased", OnPolicy: &on, GatewayCalls: 7, Attempts: 2,
		CreatedAt: t0, UpdatedAt: t0.Add(time.Minute), WorkflowID: "rollout/ro_1"}
	return &fakeRollouts{detail: RolloutDetail{
		RolloutRow: row,
		Leases: []Lease{{Epoch: 1, Holder: "worker-a", LeasedAt: t0, ExpiresAt: t0.Add(time.Minute), Heartbeats: 3,
			EndedAt: t0.Add(time.Minute), Outcome: "expired"},
			{Epoch: 2, Holder: "worker-b", LeasedAt: t0.Add(time.Minute), ExpiresAt: t0.Add(2 * time.Minute), Heartbeats: 5}},
		CallsByModel: []Count{{Label: "gpt-test", N: 7}},
	}, cancelled: map[string]string{}}
}

func (f *fakeRollouts) RolloutOverview(context.Context, RolloutFilter, Page) (RolloutCounts, ListPage[RolloutRow], error) {
	return RolloutCounts{Queued: 4, Leased: 1, Completed: 9, Excluded: 2}, ListPage[RolloutRow]{Items: []RolloutRow{f.detail.RolloutRow}}, nil
}

func (f *fakeRollouts) Rollout(_ context.Context, id string) (RolloutDetail, error) {
	if id != f.detail.ID {
		return RolloutDetail{}, ErrNotFound
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.detail, nil
}

func (f *fakeRollouts) CancelRollout(_ context.Context, _ Operator, id, reason string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != f.detail.ID {
		return ErrNotFound
	}
	if f.detail.Finished {
		return fmt.Errorf("%w: the rollout already finished", ErrConflict)
	}
	f.cancelled[id], f.detail.State, f.detail.Finished = reason, "cancelled", true
	return nil
}

type fakeSessions struct{}

func (fakeSessions) FlyLabSessions(context.Context, SessionFilter, Page) (ListPage[FlyLabSession], error) {
	return ListPage[FlyLabSession]{Items: []FlyLabSession{{ID: "page_session_1", StateRevision: 6, Status: "awaiting_approval", UpdatedAt: t0,
		WorkflowID: "flylab-session/page_session_1",
		Artifacts:  []Artifact{{ID: "hyp_1", Type: "hypothesis", Labels: []string{"agent_hypothesized"}}}}}}, nil
}

type fakeExperiments struct{}

func (fakeExperiments) ResearchExperiments(context.Context, ExperimentFilter, Page) (ListPage[ResearchExperiment], error) {
	return ListPage[ResearchExperiment]{Items: []ResearchExperiment{{ID: "rexp_7", ProjectID: "proj_1", Title: "Layer ablation", Status: "planned",
		Gate: "design_review", UpdatedAt: t0, WorkflowID: "research-experiment/rexp_7"}}}, nil
}

type fakeEvidence struct{ bundle EvidenceBundle }

func newFakeEvidence() *fakeEvidence {
	runs := []Run{
		{ID: "run_b1", Condition: "condition_baseline", Seed: 11, Points: []Point{{0, 0}, {1, 0.5}, {2, 1}}},
		{ID: "run_b2", Condition: "condition_baseline", Seed: 12, Points: []Point{{0, 0}, {1.2, 0.4}}},
		{ID: "run_s1", Condition: "condition_sham", Seed: 11, Points: []Point{{0, 0}, {0.8, 0.2}}},
		{ID: "run_a1", Condition: "condition_activate", Seed: 11, Points: []Point{{0, 0}, {-2, -0.5}, {-4, -1}}},
	}
	return &fakeEvidence{bundle: EvidenceBundle{
		EvidenceSummary: EvidenceSummary{ID: "bundle_1", Title: "MDN backward walking", ExperimentID: "exp_1", CreatedAt: t0},
		SessionID:       "page_session_1", ManifestHash: hashB, Runs: runs,
		Metrics: []Metric{{ID: "backward_distance_mm", Unit: "mm", Values: []ConditionValue{
			{Condition: "condition_baseline", Value: 0.1}, {Condition: "condition_sham", Value: 0.05}, {Condition: "condition_activate", Value: 4.2}}}},
	}}
}

func (f *fakeEvidence) EvidenceBundles(context.Context) ([]EvidenceSummary, error) {
	return []EvidenceSummary{f.bundle.EvidenceSummary}, nil
}

func (f *fakeEvidence) EvidenceBundle(_ context.Context, id string) (EvidenceBundle, error) {
	if id != f.bundle.ID {
		return EvidenceBundle{}, ErrNotFound
	}
	return f.bundle, nil
}

func (f *fakeEvidence) EvidenceExport(_ context.Context, id string) (Export, error) {
	if id != f.bundle.ID {
		return Export{}, ErrNotFound
	}
	return Export{Filename: "flylab-evidence-bundle_1.json", MediaType: "application/json", Body: []byte(`{"schema_version":"x"}`)}, nil
}
