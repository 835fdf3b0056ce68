package flywheel

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
)

// upsertsOf runs one rollout through a grant, a missed heartbeat (a
// re-queue), a second grant and an output, and checks it upserted its
// search attributes want times.
func upsertsOf(t *testing.T, loud bool, want int) {
	t.Helper()
	h := newHarness(t, 3)
	h.loudVisibility = loud
	h.env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil)
	h.grant(time.Second, 1, 10*time.Second)
	h.grant(20*time.Second, 2, 30*time.Second)
	h.query(25*time.Second, func(st Status) {
		if st.Gate != gateLeased || st.Epoch != 2 {
			t.Errorf("the status query must show the lease whatever visibility shows: %+v", st)
		}
	})
	h.at(30*time.Second, func() { h.env.SignalWorkflow(OutputSignal, OutputNotice{Epoch: 2}) })
	h.run(time.Hour, 0)
	if len(h.store.finalized) != 1 || h.store.finalized[0].Status != StatusCompleted || len(h.store.expired) != 1 {
		t.Fatalf("want completed after one re-queue, got %+v (expired %v)", h.store.finalized, h.store.expired)
	}
	h.env.AssertWorkflowNumberOfCalls(t, "workflow.UpsertTypedSearchAttributes", want)
}

// TestRollout_QuietVisibilityWritesNoSearchAttributes: a rollout enqueued
// with QuietVisibility upserts nothing, however its lease moves; one
// enqueued before it still upserts its gate at the start, on each grant
// and re-queue, and at the end.
func TestRollout_QuietVisibilityWritesNoSearchAttributes(t *testing.T) {
	t.Run("quiet", func(t *testing.T) { upsertsOf(t, false, 0) })
	// start, grant, re-queue, grant, done
	t.Run("enqueued before", func(t *testing.T) { upsertsOf(t, true, 5) })
}
