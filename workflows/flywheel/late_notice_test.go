package flywheel

import (
	"testing"
	"time"
)

// TestRollout_AGrantToldAfterItsExpiryAsksTheDatabaseBeforeRequeueing: the
// outbox may deliver a grant late (a Temporal outage): the workflow learns
// of a lease whose told expiry has passed and asks the database at once,
// which re-queues it only if no heartbeat extended it.
func TestRollout_AGrantToldAfterItsExpiryAsksTheDatabaseBeforeRequeueing(t *testing.T) {
	for _, c := range []struct {
		name       string
		landed     time.Duration // heartbeats kept it until (after start); 0: none
		wantExpire int
	}{
		{"no heartbeat landed: re-queued", 0, 1},
		{"heartbeats landed: kept", 90 * time.Second, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, 3)
			if c.landed > 0 {
				h.store.landedUntil = h.start.Add(c.landed)
			}
			h.at(30*time.Second, func() { // granted at 0 for 10s, told at 30s
				h.env.SignalWorkflow(LeaseSignal, LeaseUpdate{Epoch: 1, ExpiresAt: h.start.Add(10 * time.Second)})
			})
			h.at(60*time.Second, func() { h.env.SignalWorkflow(CancelSignal, CancelRequest{}) })
			h.run(time.Hour, 0)
			if len(h.store.expired) != c.wantExpire {
				t.Fatalf("revoked %v, want %d revocations", h.store.expired, c.wantExpire)
			}
		})
	}
}

// TestRollout_AnOutputNoticeWithoutItsGrantCompletes: an output accepted
// before its grant's notice was due drops that notice; the output notice
// alone completes the rollout, and the workflow's status names the
// output's lease.
func TestRollout_AnOutputNoticeWithoutItsGrantCompletes(t *testing.T) {
	h := newHarness(t, 3)
	h.at(5*time.Second, func() { h.env.SignalWorkflow(OutputSignal, OutputNotice{Epoch: 1}) })
	st := h.run(time.Hour, 0)
	if len(h.store.finalized) != 1 || h.store.finalized[0].Status != StatusCompleted {
		t.Fatalf("finalized %+v, want completed", h.store.finalized)
	}
	if st.Epoch != 1 {
		t.Fatalf("status epoch %d, want the output's lease 1", st.Epoch)
	}
}
