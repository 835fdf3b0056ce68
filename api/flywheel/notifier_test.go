package flywheel

import (
	"context"
	"net/http"
	"testing"
	"time"

	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/platform"
	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// TestNotifier_AProcessThatDiedBetweenItsStatementAndItsNoticeIsReconciled:
// a grant and an output decided in the database by a process that never
// told the workflow (they are written here straight through the models,
// as a process killed after its statement leaves them) are left to that
// process for the grace period, then sent by another process's reconciler
// and deleted from the outbox.
func TestNotifier_AProcessThatDiedBetweenItsStatementAndItsNoticeIsReconciled(t *testing.T) {
	eachClockedEnv(t, func(t *testing.T, e *testEnv, clock *offsetClock) {
		dead := e.lease(time.Hour) // claimed; its process died before notifying
		out := e.lease(time.Hour)
		if _, _, err := fwmodels.AcceptOutput(context.Background(), e.db, fwmodels.Holder{RolloutID: out.Rollout.ID, APIKey: out.APIKey, LeaseToken: out.LeaseToken},
			fwmodels.Output{BodySHA256: "x", FinalText: "x"}, clock.now()); err != nil {
			t.Fatal(err)
		}
		if n := e.h.notices.reconcileOnce(); n != 0 {
			t.Fatalf("the reconciler took %d notices still within their writer's grace", n)
		}
		clock.advance(fwmodels.NoticeGrace + time.Second)
		if n := e.h.notices.reconcileOnce(); n != 3 {
			t.Fatalf("the reconciler took %d notices, want 3 (two grants, one output)", n)
		}
		e.eventually("the dead process's grant is told", func() bool { return e.signalled(wf.LeaseSignal, dead.Rollout.ID) })
		e.eventually("the dead process's output is told", func() bool { return e.signalled(wf.OutputSignal, out.Rollout.ID) })
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
	clock.advance(fwmodels.NoticeGrace + time.Second)
	if n := e.h.notices.reconcileOnce(); n != 1 {
		t.Fatalf("took %d, want 1", n)
	}
	time.Sleep(100 * time.Millisecond) // the failed send and a delete tick
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
	clock.advance(fwmodels.NoticeGrace + time.Second)
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

// TestHeartbeat_OnAProcessThatDidNotClaimWaitsForTheGrantsExpiry: behind a
// balancer a heartbeat lands on any API process. One that did not claim
// the rollout knows from the row what the grant's notice tells the
// workflow, so it defers its signal to shortly before that expiry instead
// of signalling at once (one Temporal signal per heartbeat otherwise).
func TestHeartbeat_OnAProcessThatDidNotClaimWaitsForTheGrantsExpiry(t *testing.T) {
	a := newTestEnv(t, Options{})
	b := newTestEnvOn(t, a.db, Options{}) // a second API process on the same database
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
	for range 3 {
		if r := b.do(http.MethodPost, "/flywheel/rollouts/"+c.RolloutID+"/heartbeat", c.APIKey, nil, LeaseTokenHeader, c.LeaseToken); r.Status != http.StatusOK {
			t.Fatalf("heartbeat: %d %s", r.Status, r.Body)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if b.signalled(wf.LeaseSignal, c.RolloutID) {
		t.Fatal("the process that did not claim signalled a heartbeat at once, 60s before the grant's expiry")
	}
	a.eventually("the claiming process tells the grant", func() bool { return a.signalled(wf.LeaseSignal, c.RolloutID) })
}
