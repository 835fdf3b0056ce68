package flywheel

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/gatehouse/gatehouse/internal/telemetry"
	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/platform"
	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// TestNotifier_AProcessThatDiedBetweenItsStatementAndItsNoticeIsReconciled:
// a grant and an output decided in the database by a process that never
// told the workflow (they are written here straight through the models,
// as a process killed after its statement leaves them) are sent by
// another process's reconciler once due (the output after the writer's
// grace for outputs, the grant shortly before its expiry) and deleted from the outbox.
func TestNotifier_AProcessThatDiedBetweenItsStatementAndItsNoticeIsReconciled(t *testing.T) {
	eachClockedEnv(t, func(t *testing.T, e *testEnv, clock *offsetClock) {
		dead := e.lease(time.Hour) // claimed for a minute; its process died before notifying
		out := e.lease(time.Hour)
		if _, _, err := fwmodels.AcceptOutput(context.Background(), e.db, fwmodels.Holder{RolloutID: out.Rollout.ID, APIKey: out.APIKey, LeaseToken: out.LeaseToken},
			fwmodels.Output{BodySHA256: "x", FinalText: "x"}, clock.now()); err != nil {
			t.Fatal(err)
		}
		if n := e.h.notices.reconcileOnce(); n != 0 {
			t.Fatalf("the reconciler took %d notices still within their writer's grace", n)
		}
		clock.advance(fwmodels.NoticeGrace + time.Second)
		if n := e.h.notices.reconcileOnce(); n != 0 {
			t.Fatalf("the reconciler took %d notices within an output's longer grace (its writer may still be draining a burst)", n)
		}
		clock.advance(fwmodels.OutputNoticeGrace - fwmodels.NoticeGrace)
		if n := e.h.notices.reconcileOnce(); n != 1 {
			t.Fatalf("the reconciler took %d notices past the grace, want the output only", n)
		}
		e.eventually("the dead process's output is told", func() bool { return e.signalled(wf.OutputSignal, out.Rollout.ID) })
		if e.signalled(wf.LeaseSignal, dead.Rollout.ID) {
			t.Fatal("a minute's grant was told 54s before it was due")
		}
		e.eventually("the told output's notice is deleted", func() bool { return len(e.pendingNotices()) == 1 })
		clock.advance(time.Minute - 15*time.Second - fwmodels.OutputNoticeGrace) // a quarter of the lease before expiry
		if n := e.h.notices.reconcileOnce(); n != 1 {
			t.Fatalf("the reconciler took %d notices shortly before the grant's expiry, want the grant", n)
		}
		e.eventually("the dead process's grant is told", func() bool { return e.signalled(wf.LeaseSignal, dead.Rollout.ID) })
		e.eventually("the outbox empties", func() bool { return len(e.pendingNotices()) == 0 })
	})
}

// TestNotifier_AFailedSendStaysInTheOutboxAndIsRetried: a notice Temporal
// refused is not deleted; the next reconcile after its retry delay sends
// it, and only then is it gone.
func TestNotifier_AFailedSendStaysInTheOutboxAndIsRetried(t *testing.T) {
	clock := &offsetClock{}
	e := newTestEnv(t, Options{Now: clock.now})
	e.temporal.mu.Lock()
	e.temporal.failSig = true
	e.temporal.mu.Unlock()
	g := e.lease(time.Hour)
	failed, sent := telemetry.FlywheelSignals.WithLabelValues(fwmodels.NoticeGrant, "failed"), telemetry.FlywheelSignals.WithLabelValues(fwmodels.NoticeGrant, "sent")
	failedBefore, sentBefore := testutil.ToFloat64(failed), testutil.ToFloat64(sent)
	clock.advance(time.Minute)
	if n := e.h.notices.reconcileOnce(); n != 1 {
		t.Fatalf("took %d, want 1", n)
	}
	time.Sleep(100 * time.Millisecond) // the failed send and a delete tick
	if d := testutil.ToFloat64(failed) - failedBefore; d < 1 {
		t.Fatalf("the failed grant signal was not counted (%v)", d)
	}
	if len(e.pendingNotices()) != 1 {
		t.Fatal("a notice Temporal refused left the outbox")
	}
	if n := e.h.notices.reconcileOnce(); n != 0 {
		t.Fatalf("retried %d notices before their retry delay", n)
	}
	e.temporal.mu.Lock()
	e.temporal.failSig = false
	e.temporal.mu.Unlock()
	clock.advance(noticeRetry + time.Second)
	if n := e.h.notices.reconcileOnce(); n != 1 {
		t.Fatalf("took %d after the retry delay, want 1", n)
	}
	e.eventually("the grant is told", func() bool { return e.signalled(wf.LeaseSignal, g.Rollout.ID) })
	e.eventually("the outbox empties", func() bool { return len(e.pendingNotices()) == 0 })
	if d := testutil.ToFloat64(sent) - sentBefore; d < 1 {
		t.Fatalf("the sent grant signal was not counted (%v)", d)
	}
}

// TestNotifier_ANoticeForAnEndedWorkflowIsDropped: Temporal answering
// NotFound (the workflow has ended) needs no retry.
func TestNotifier_ANoticeForAnEndedWorkflowIsDropped(t *testing.T) {
	clock := &offsetClock{}
	e := newTestEnv(t, Options{Now: clock.now})
	e.temporal.mu.Lock()
	e.temporal.gone = true
	e.temporal.mu.Unlock()
	e.lease(time.Hour)
	clock.advance(time.Minute)
	e.h.notices.reconcileOnce()
	e.eventually("the outbox empties", func() bool { return len(e.pendingNotices()) == 0 })
}

// TestClaim_ARevokedKeyStopsClaimingWithinTheAuthCacheTTL: a claimer's key
// is reused from the cache for at most DefaultAuthCacheTTL; past it a
// revoked key is refused.
func TestClaim_ARevokedKeyStopsClaimingWithinTheAuthCacheTTL(t *testing.T) {
	clock := &offsetClock{}
	e := newTestEnv(t, Options{Now: clock.now})
	key, id := e.mintAgent("soon revoked")
	if r := e.do(http.MethodPost, "/flywheel/claim", key, nil); r.Status != http.StatusOK {
		t.Fatalf("claim: %d %s", r.Status, r.Body)
	}
	if err := platform.Revoke(context.Background(), e.db, id); err != nil {
		t.Fatal(err)
	}
	clock.advance(DefaultAuthCacheTTL + time.Millisecond)
	if r := e.do(http.MethodPost, "/flywheel/claim", key, nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("a revoked key past the cache TTL: %d %s, want 401", r.Status, r.Body)
	}
	if r := e.do(http.MethodPost, "/flywheel/claim", "mk_never_minted", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("an unknown key: %d, want 401", r.Status)
	}
	op := e.do(http.MethodPost, "/flywheel/claim", e.opToken, nil)
	if op.Status != http.StatusForbidden {
		t.Fatalf("an operator token: %d, want 403", op.Status)
	}
}

// TestClaim_TheWorkflowIsToldShortlyBeforeExpiryWithTheLatestHeartbeat: a
// claim burst costs Temporal nothing while it lasts. Neither the claiming
// process nor others heartbeats land on (behind a balancer) signal at
// once, not even one that first hears of the lease after the notice's
// first due time; the grant's notice would go a quarter of the lease
// before its expiry, but each heartbeat defers it to shortly before the
// expiry it sets, up to a minute after the grant, when it goes carrying
// the expiry the heartbeats have moved the lease to.
func TestClaim_TheWorkflowIsToldShortlyBeforeExpiryWithTheLatestHeartbeat(t *testing.T) {
	clock := &offsetClock{}
	opts := Options{Now: clock.now, LeaseMax: time.Hour}
	a := newTestEnv(t, opts)
	b := newTestEnvOn(t, a.db, opts)  // a second API process on the same database
	c3 := newTestEnvOn(t, a.db, opts) // and a third, which sees only a late heartbeat
	a.do(http.MethodPost, "/operator/v1/rollouts", a.opToken, []byte(`{"rollouts":[{"turn_input":"x"}]}`))
	r := a.do(http.MethodPost, "/flywheel/claim", a.agentKey, []byte(`{"max_rollouts":1,"lease_s":60}`))
	var claim struct {
		Rollouts []struct {
			RolloutID  string `json:"rollout_id"`
			APIKey     string `json:"api_key"`
			LeaseToken string `json:"lease_token"`
		} `json:"rollouts"`
	}
	r.decode(t, &claim)
	c := claim.Rollouts[0]
	var hb struct {
		LeaseExpiresTS float64 `json:"lease_expires_ts"`
	}
	var elapsed time.Duration // on the test's clock, since the claim
	set := func(at time.Duration) { clock.advance(at - elapsed); elapsed = at }
	heartbeat := func(on *testEnv, at time.Duration) {
		set(at)
		r := on.do(http.MethodPost, "/flywheel/rollouts/"+c.RolloutID+"/heartbeat", c.APIKey, nil, LeaseTokenHeader, c.LeaseToken)
		if r.Status != http.StatusOK {
			t.Fatalf("heartbeat at %s: %d %s", at, r.Status, r.Body)
		}
		r.decode(t, &hb)
	}
	quiet := func(when string) {
		time.Sleep(300 * time.Millisecond)
		if a.signalled(wf.LeaseSignal, c.RolloutID) || b.signalled(wf.LeaseSignal, c.RolloutID) || c3.signalled(wf.LeaseSignal, c.RolloutID) {
			t.Fatalf("the workflow was signalled %s", when)
		}
	}
	for range 3 {
		heartbeat(b, 10*time.Second)
	}
	quiet("at once")
	set(46 * time.Second) // past 60s - 15s: due, but the heartbeat deferred it to 70s - 15s
	a.h.notices.reconcileOnce()
	quiet("46s after the grant, 24s before the heartbeat's expiry")
	heartbeat(c3, 50*time.Second)
	a.h.notices.reconcileOnce()
	quiet("after a heartbeat past the grant notice's first due time")
	set(61 * time.Second) // GrantNoticeMaxDeferral after the grant
	a.h.notices.reconcileOnce()
	a.eventually("the grant is told", func() bool { return a.signalled(wf.LeaseSignal, c.RolloutID) })
	a.temporal.mu.Lock()
	got := a.temporal.leases[wf.WorkflowID(c.RolloutID)]
	a.temporal.mu.Unlock()
	if want := time.UnixMicro(int64(hb.LeaseExpiresTS * 1e6)).UTC(); len(got) != 1 || !got[0].ExpiresAt.Equal(want) {
		t.Fatalf("told %+v, want one notice with the heartbeat's expiry %s", got, want)
	}
}

// TestNotifier_NoticesYieldToAgentRequestsInFlightForABoundedTime: while
// an agent request is being served, an output's notice waits; it goes as
// soon as the process is idle, and even if the process never is, after
// noticeYield for a grant's notice and its outputYield (outputNoticeYield,
// shortened here so the test is quick) for an output's.
func TestNotifier_NoticesYieldToAgentRequestsInFlightForABoundedTime(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	e.h.notices.outputYield = 2 * time.Second // before any notice is queued: the queue orders it before the workers' reads
	outputYield := e.h.notices.outputYield
	idle, busy, granted := e.lease(time.Hour), e.lease(time.Hour), e.lease(time.Hour)
	output := func(g fwmodels.Grant) fwmodels.Notice {
		return fwmodels.Notice{RolloutID: g.Rollout.ID, Epoch: g.Rollout.LeaseEpoch, Kind: fwmodels.NoticeOutput}
	}

	e.h.inFlight.Add(1) // a request being served
	e.h.notices.notify(output(idle))
	time.Sleep(300 * time.Millisecond)
	if e.signalled(wf.OutputSignal, idle.Rollout.ID) {
		t.Fatal("a notice was sent while a request was in flight, well within its yield")
	}
	e.h.inFlight.Add(-1)
	start := time.Now()
	e.eventually("the notice goes once the process is idle", func() bool { return e.signalled(wf.OutputSignal, idle.Rollout.ID) })
	if waited := time.Since(start); waited > 500*time.Millisecond {
		t.Fatalf("the notice went %v after the process became idle", waited)
	}

	e.h.inFlight.Add(1) // requests without end
	defer e.h.inFlight.Add(-1)
	start = time.Now()
	exp := granted.ExpiresAt
	e.h.notices.notify(output(busy), fwmodels.Notice{RolloutID: granted.Rollout.ID, Epoch: granted.Rollout.LeaseEpoch, Kind: fwmodels.NoticeGrant, ExpiresAt: &exp})
	var grantAfter, outputAfter time.Duration
	e.eventually("both notices go after their yields under a steady load", func() bool {
		if grantAfter == 0 && e.signalled(wf.LeaseSignal, granted.Rollout.ID) {
			grantAfter = time.Since(start)
		}
		if outputAfter == 0 && e.signalled(wf.OutputSignal, busy.Rollout.ID) {
			outputAfter = time.Since(start)
		}
		return grantAfter > 0 && outputAfter > 0
	})
	if grantAfter < noticeYield-50*time.Millisecond || grantAfter > noticeYield+time.Second {
		t.Fatalf("under a steady load the grant's notice went after %v, want about %v", grantAfter, noticeYield)
	}
	if outputAfter < outputYield-50*time.Millisecond || outputAfter > outputYield+time.Second {
		t.Fatalf("under a steady load the output's notice went after %v, want about %v", outputAfter, outputYield)
	}
}

// TestNotifier_TheReconcilerLeavesANoticeWaitingInTheQueueToIt: a notice
// past its grace that still waits in this process's queue (yielding to
// requests in flight) is not queued a second time by the reconciler; once
// sent, the reconciler would take it again only if its delete failed.
func TestNotifier_TheReconcilerLeavesANoticeWaitingInTheQueueToIt(t *testing.T) {
	eachClockedEnv(t, func(t *testing.T, e *testEnv, clock *offsetClock) {
		g := e.lease(time.Hour)
		if _, _, err := fwmodels.AcceptOutput(context.Background(), e.db, fwmodels.Holder{RolloutID: g.Rollout.ID, APIKey: g.APIKey, LeaseToken: g.LeaseToken},
			fwmodels.Output{BodySHA256: "x", FinalText: "x"}, clock.now()); err != nil {
			t.Fatal(err)
		}
		e.h.inFlight.Add(1) // the queued notice keeps yielding
		e.h.notices.notify(fwmodels.Notice{RolloutID: g.Rollout.ID, Epoch: g.Rollout.LeaseEpoch, Kind: fwmodels.NoticeOutput})
		clock.advance(fwmodels.OutputNoticeGrace + time.Second)
		if n := e.h.notices.reconcileOnce(); n != 0 {
			t.Fatalf("the reconciler queued %d notices already waiting in the queue, want 0", n)
		}
		e.h.inFlight.Add(-1)
		e.eventually("the queued notice is told", func() bool { return e.signalled(wf.OutputSignal, g.Rollout.ID) })
		e.eventually("and deleted", func() bool { return len(e.pendingNotices()) == 0 })
		if n := e.signalCount(wf.OutputSignal, g.Rollout.ID); n != 1 {
			t.Fatalf("the workflow was told of the output %d times, want once", n)
		}
	})
}

// TestHandler_BusyForAnIdleGapAfterTheLastAgentRequest: a process counts as
// busy while an agent request is in flight and for its idle gap after the
// last one ended, so a notice waits for the lull after a burst rather
// than slipping into the gaps between the burst's requests.
func TestHandler_BusyForAnIdleGapAfterTheLastAgentRequest(t *testing.T) {
	e := newTestEnv(t, Options{})
	e.h.idleGap.Store(int64(time.Hour))
	if e.h.busy() {
		t.Fatal("busy before any agent request")
	}
	if r := e.do(http.MethodPost, "/flywheel/claim", e.agentKey, nil); r.Status != http.StatusOK {
		t.Fatalf("claim: %d %s", r.Status, r.Body)
	}
	if !e.h.busy() {
		t.Fatal("idle within the idle gap after an agent request")
	}
	e.h.idleGap.Store(0)
	if e.h.busy() {
		t.Fatal("busy past the idle gap with nothing in flight")
	}
}

// TestNotifier_TheReconcilerTakesMoreBatchesOnlyWhileIdle: with more due
// notices than a batch, an idle process takes batch after batch in one
// pass; a busy one takes a single batch and leaves the rest to its next
// tick.
func TestNotifier_TheReconcilerTakesMoreBatchesOnlyWhileIdle(t *testing.T) {
	clock := &offsetClock{}
	e := newTestEnv(t, Options{Now: clock.now})
	for range 3 {
		e.lease(time.Hour)
	}
	e.h.notices.batch.Store(1)
	clock.advance(time.Minute) // every grant notice is due
	e.h.inFlight.Add(1)        // an agent request is being served
	if n := e.h.notices.reconcileOnce(); n != 1 {
		t.Fatalf("a busy process took %d notices, want one batch of 1", n)
	}
	e.h.inFlight.Add(-1)
	e.h.idleGap.Store(0)
	if n := e.h.notices.reconcileOnce(); n != 2 {
		t.Fatalf("an idle process took %d notices, want the other 2 in one pass", n)
	}
}

// TestNoticeYields_StayUnderTheirGrace: a notice yielding to requests in
// its own process is sent before another process's reconciler may take
// it, so a yield never turns into a notice signalled twice.
func TestNoticeYields_StayUnderTheirGrace(t *testing.T) {
	if noticeYield >= fwmodels.NoticeGrace || outputNoticeYield >= fwmodels.OutputNoticeGrace {
		t.Fatalf("yields %v and %v, graces %v and %v: each yield must stay under its grace",
			noticeYield, outputNoticeYield, fwmodels.NoticeGrace, fwmodels.OutputNoticeGrace)
	}
}
