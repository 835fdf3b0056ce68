package flywheel

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// fakeStore plays the database's part: the authority for whether a
// heartbeat landed (landedUntil) and for the attempt bound.
type fakeStore struct {
	mu          sync.Mutex
	env         *testsuite.TestWorkflowEnvironment
	maxAttempts int64
	landedUntil time.Time
	expired     []int64
	finalized   []FinalizeInput
}

func (f *fakeStore) ExpireLease(_ context.Context, in ExpireLeaseInput) (ExpireLeaseResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.landedUntil.After(f.env.Now()) {
		return ExpireLeaseResult{Outcome: ExpiryExtended, ExpiresAt: f.landedUntil}, nil
	}
	f.expired = append(f.expired, in.Epoch)
	if in.Epoch >= f.maxAttempts {
		return ExpireLeaseResult{Outcome: ExpiryExhausted}, nil
	}
	return ExpireLeaseResult{Outcome: ExpiryRequeued}, nil
}

func (f *fakeStore) Finalize(_ context.Context, in FinalizeInput) (FinalizeResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finalized = append(f.finalized, in)
	return FinalizeResult{Status: in.Status, Reason: in.Reason}, nil
}

type harness struct {
	t     *testing.T
	env   *testsuite.TestWorkflowEnvironment
	store *fakeStore
	start time.Time
	// finalizeRemotely runs the rollout as enqueued before
	// RolloutInput.FinalizeLocally: its terminal record a regular activity.
	finalizeRemotely bool
	// loudVisibility runs the rollout as enqueued before
	// RolloutInput.QuietVisibility: it upserts its gate.
	loudVisibility bool
}

func newHarness(t *testing.T, maxAttempts int64) *harness {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	env.SetStartTime(start)
	store := &fakeStore{env: env, maxAttempts: maxAttempts}
	env.RegisterWorkflowWithOptions(Rollout, workflow.RegisterOptions{Name: RolloutWorkflow})
	env.RegisterActivityWithOptions(store.ExpireLease, activity.RegisterOptions{Name: ExpireLeaseActivity})
	env.RegisterActivityWithOptions(store.Finalize, activity.RegisterOptions{Name: FinalizeActivity})
	return &harness{t: t, env: env, store: store, start: start}
}

// at runs fn at offset d after the start.
func (h *harness) at(d time.Duration, fn func()) { h.env.RegisterDelayedCallback(fn, d) }

func (h *harness) grant(d time.Duration, epoch int64, lease time.Duration) {
	h.at(d, func() {
		h.env.SignalWorkflow(LeaseSignal, LeaseUpdate{Epoch: epoch, ExpiresAt: h.env.Now().Add(lease)})
	})
}

// heartbeat lands in the database and then signals, as the API does.
func (h *harness) heartbeat(d time.Duration, epoch int64, lease time.Duration) {
	h.at(d, func() {
		exp := h.env.Now().Add(lease)
		h.store.mu.Lock()
		h.store.landedUntil = exp
		h.store.mu.Unlock()
		h.env.SignalWorkflow(LeaseSignal, LeaseUpdate{Epoch: epoch, ExpiresAt: exp})
	})
}

func (h *harness) query(d time.Duration, check func(Status)) {
	h.at(d, func() {
		v, err := h.env.QueryWorkflow(StatusQuery)
		if err != nil {
			h.t.Errorf("query: %v", err)
			return
		}
		var st Status
		if err := v.Get(&st); err != nil {
			h.t.Error(err)
			return
		}
		check(st)
	})
}

func (h *harness) run(deadline time.Duration, maxSignals int) Status {
	h.t.Helper()
	h.env.ExecuteWorkflow(RolloutWorkflow, RolloutInput{RolloutID: "ro_1", DeadlineAt: h.start.Add(deadline), MaxSignalsPerRun: maxSignals,
		FinalizeLocally: !h.finalizeRemotely, QuietVisibility: !h.loudVisibility})
	if !h.env.IsWorkflowCompleted() {
		h.t.Fatal("workflow did not complete")
	}
	var st Status
	if err := h.env.GetWorkflowResult(&st); err != nil {
		h.t.Fatalf("workflow error: %v", err)
	}
	return st
}

func TestRollout_HeartbeatExtendsTheLease(t *testing.T) {
	h := newHarness(t, 3)
	h.grant(time.Second, 1, 30*time.Second)
	for i := 1; i <= 5; i++ {
		h.heartbeat(time.Duration(i)*10*time.Second, 1, 30*time.Second)
	}
	h.query(75*time.Second, func(st Status) {
		if st.Gate != gateLeased || st.Heartbeats != 5 || !st.LeaseExpiresAt.Equal(h.start.Add(80*time.Second)) {
			t.Errorf("at 75s want leased until 80s after 5 heartbeats, got %+v", st)
		}
	})
	h.at(76*time.Second, func() { h.env.SignalWorkflow(OutputSignal, OutputNotice{Epoch: 1}) })
	st := h.run(time.Hour, 0)
	if len(h.store.expired) != 0 {
		t.Fatalf("a heartbeating lease must not be revoked: %v", h.store.expired)
	}
	if st.Heartbeats != 5 || h.store.finalized[0].Status != StatusCompleted {
		t.Fatalf("%+v %+v", st, h.store.finalized)
	}
}

func TestRollout_MissedHeartbeatRequeuesAndTheNextLeaseHasANewEpoch(t *testing.T) {
	h := newHarness(t, 3)
	h.grant(time.Second, 1, 30*time.Second)
	h.query(40*time.Second, func(st Status) {
		if st.Gate != gateQueued || st.Epoch != 1 {
			t.Errorf("after the missed heartbeat want queued, got %+v", st)
		}
	})
	h.grant(50*time.Second, 2, 30*time.Second)
	h.query(55*time.Second, func(st Status) {
		if st.Gate != gateLeased || st.Epoch != 2 {
			t.Errorf("want leased at epoch 2, got %+v", st)
		}
	})
	h.at(60*time.Second, func() { h.env.SignalWorkflow(OutputSignal, OutputNotice{Epoch: 2}) })
	h.run(time.Hour, 0)
	if len(h.store.expired) != 1 || h.store.expired[0] != 1 {
		t.Fatalf("want exactly lease 1 revoked, got %v", h.store.expired)
	}
	if h.store.finalized[0].Status != StatusCompleted {
		t.Fatalf("%+v", h.store.finalized)
	}
}

func TestRollout_StaleEpochIsFenced(t *testing.T) {
	h := newHarness(t, 3)
	h.grant(time.Second, 1, 30*time.Second)
	h.grant(40*time.Second, 2, 30*time.Second) // lease 1 lapsed at 31s
	// The old holder's heartbeat and output carry epoch 1: both ignored.
	h.at(50*time.Second, func() {
		h.env.SignalWorkflow(LeaseSignal, LeaseUpdate{Epoch: 1, ExpiresAt: h.env.Now().Add(time.Hour)})
		h.env.SignalWorkflow(OutputSignal, OutputNotice{Epoch: 1})
	})
	h.query(60*time.Second, func(st Status) {
		if st.Epoch != 2 || st.Heartbeats != 0 || !st.LeaseExpiresAt.Equal(h.start.Add(70*time.Second)) {
			t.Errorf("stale signals must change nothing: %+v", st)
		}
	})
	h.at(100*time.Second, func() { h.env.SignalWorkflow(CancelSignal, CancelRequest{Detail: "stop"}) })
	st := h.run(time.Hour, 0)
	if len(h.store.expired) != 2 || h.store.expired[1] != 2 {
		t.Fatalf("lease 2 must lapse at 70s despite the stale heartbeat: %v", h.store.expired)
	}
	if st.Exclusion != ExclusionCancelled {
		t.Fatalf("want cancelled, got %+v", st)
	}
}

func TestRollout_DeadlineEndsWithExclusion(t *testing.T) {
	h := newHarness(t, 3)
	h.grant(time.Second, 1, 30*time.Second)
	for i := 1; i <= 12; i++ {
		h.heartbeat(time.Duration(i)*10*time.Second, 1, 30*time.Second)
	}
	st := h.run(100*time.Second, 0)
	if st.Exclusion != ExclusionDeadline || h.store.finalized[0].Reason != ExclusionDeadline {
		t.Fatalf("want deadline_exceeded, got %+v %+v", st, h.store.finalized)
	}
	if got := h.env.Now(); got.After(h.start.Add(100*time.Second + time.Second)) {
		t.Fatalf("ended late: %v", got.Sub(h.start))
	}
}

func TestRollout_AttemptsRunOutWithCapacity(t *testing.T) {
	h := newHarness(t, 2)
	h.grant(time.Second, 1, 10*time.Second)
	h.grant(20*time.Second, 2, 10*time.Second)
	st := h.run(time.Hour, 0)
	if st.Exclusion != ExclusionCapacity || len(h.store.expired) != 2 {
		t.Fatalf("want capacity after 2 lapsed leases, got %+v %v", st, h.store.expired)
	}
}

func TestRollout_LostHeartbeatSignalIsFoundInTheDatabase(t *testing.T) {
	h := newHarness(t, 3)
	h.grant(time.Second, 1, 30*time.Second)
	h.at(20*time.Second, func() { // landed in the database, signal lost
		h.store.mu.Lock()
		h.store.landedUntil = h.env.Now().Add(30 * time.Second)
		h.store.mu.Unlock()
	})
	h.query(45*time.Second, func(st Status) {
		if st.Gate != gateLeased || !st.LeaseExpiresAt.Equal(h.start.Add(50*time.Second)) {
			t.Errorf("want the lease re-read as extended to 50s, got %+v", st)
		}
	})
	h.at(46*time.Second, func() { h.env.SignalWorkflow(OutputSignal, OutputNotice{Epoch: 1}) })
	h.run(time.Hour, 0)
	if len(h.store.expired) != 0 {
		t.Fatalf("revoked a lease the database had extended: %v", h.store.expired)
	}
}

func TestRollout_ContinuesAsNewOnItsOwnSignalCount(t *testing.T) {
	h := newHarness(t, 3)
	h.grant(time.Second, 1, 30*time.Second)
	for i := 1; i <= 12; i++ {
		h.heartbeat(time.Duration(i)*time.Second+time.Second, 1, 30*time.Second)
	}
	h.env.ExecuteWorkflow(RolloutWorkflow, RolloutInput{RolloutID: "ro_1", DeadlineAt: h.start.Add(time.Hour), MaxSignalsPerRun: 10})
	err := h.env.GetWorkflowError()
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("want continue-as-new, got %v", err)
	}
	var next RolloutInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	c := next.Carry
	if c == nil || !c.Leased || c.Epoch != 1 || c.Heartbeats != 9 || c.Runs != 1 || next.RolloutID != "ro_1" {
		t.Fatalf("carry: %+v", c)
	}
}
