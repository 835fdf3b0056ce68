package flywheel

import (
	"context"
	"testing"
	"time"

	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// TestNotifier_ANoticeQueuedInOneReplicaIsNotSentByAnother: two api
// replicas share one PostgreSQL database. An output's notice waits in
// replica A's queue (yielding to A's requests) past its grace; A holds it
// (once it is about to fall due, not before), so replica B's reconciler does not take it and tell the workflow a
// second time. The hold is bounded, so had A died, B would take the
// notice within noticeHoldFor; once A sends it, the workflow was told
// once, by A.
func TestNotifier_ANoticeQueuedInOneReplicaIsNotSentByAnother(t *testing.T) {
	pg := modelstest.Postgres(t)
	if pg == nil {
		t.Skip("needs GATEHOUSE_TEST_DATABASE_URL: replicas share a PostgreSQL database (gatehouse dev is one process)")
	}
	clock := &offsetClock{}
	a, b := newTestEnvOn(t, pg, Options{Now: clock.now}), newTestEnvOn(t, pg, Options{Now: clock.now})
	g := a.lease(time.Hour)
	if _, _, err := fwmodels.AcceptOutput(context.Background(), pg, fwmodels.Holder{RolloutID: g.Rollout.ID, APIKey: g.APIKey, LeaseToken: g.LeaseToken},
		fwmodels.Output{BodySHA256: "x", FinalText: "x"}, clock.now()); err != nil {
		t.Fatal(err)
	}
	a.h.inFlight.Add(1) // A's queued notice keeps yielding
	a.h.notices.notify(fwmodels.Notice{RolloutID: g.Rollout.ID, Epoch: g.Rollout.LeaseEpoch, Kind: fwmodels.NoticeOutput,
		DueAt: clock.now().Add(fwmodels.OutputNoticeGrace)})
	// While the notice is far from due, holding it would be a statement
	// for nothing (in a burst of outputs, one every tick).
	clock.advance(fwmodels.OutputNoticeGrace - noticeHoldFor - time.Second)
	if named, _ := a.h.notices.holdPendingOnce(); named != 0 {
		t.Fatalf("replica A named %d notices to hold %v before they fall due, want none", named, noticeHoldFor+time.Second)
	}
	clock.advance(noticeHoldFor + 2*time.Second) // past its grace
	if named, held := a.h.notices.holdPendingOnce(); named != 1 || held != 1 {
		t.Fatalf("replica A named %d and held %d of its queued notices, want 1 and 1", named, held)
	}
	if ns := a.pendingNotices(); len(ns) != 1 || ns[0].DueAt.After(clock.now().Add(noticeHoldFor+time.Second)) {
		t.Fatalf("the held notice: %+v, want one due within %v", ns, noticeHoldFor)
	}
	if n := b.h.notices.reconcileOnce(); n != 0 {
		t.Fatalf("replica B's reconciler took %d notices waiting in replica A's queue, want 0", n)
	}
	a.h.inFlight.Add(-1)
	a.eventually("replica A tells the workflow", func() bool { return a.signalled(wf.OutputSignal, g.Rollout.ID) })
	a.eventually("and deletes the notice", func() bool { return len(a.pendingNotices()) == 0 })
	if n := b.signalCount(wf.OutputSignal, g.Rollout.ID); n != 0 {
		t.Fatalf("replica B told the workflow %d times as well", n)
	}
}
