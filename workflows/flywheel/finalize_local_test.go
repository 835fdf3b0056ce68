package flywheel

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
)

// TestRollout_WritesItsTerminalRecordInALocalActivity: a rollout enqueued
// with FinalizeLocally records its end (here an accepted output, after a
// first lease lapsed) through a local activity run inside the workflow
// task, and schedules no regular activity for it; the expiry check stays
// a regular activity. A rollout enqueued before (FinalizeLocally false)
// still ends through the regular activity.
func TestRollout_WritesItsTerminalRecordInALocalActivity(t *testing.T) {
	for _, c := range []struct {
		name           string
		remotely       bool
		local, regular []string
	}{
		{"FinalizeLocally", false, []string{FinalizeActivity}, []string{ExpireLeaseActivity}},
		{"enqueued before FinalizeLocally", true, nil, []string{ExpireLeaseActivity, FinalizeActivity}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, 3)
			h.finalizeRemotely = c.remotely
			var mu sync.Mutex
			var local, regular []string
			h.env.SetOnLocalActivityStartedListener(func(info *activity.Info, _ context.Context, _ []any) {
				mu.Lock()
				defer mu.Unlock()
				local = append(local, info.ActivityType.Name)
			})
			h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
				mu.Lock()
				defer mu.Unlock()
				regular = append(regular, info.ActivityType.Name)
			})
			h.grant(time.Second, 1, 10*time.Second)
			h.grant(20*time.Second, 2, 30*time.Second) // after the first lease lapsed and was re-queued
			h.at(25*time.Second, func() { h.env.SignalWorkflow(OutputSignal, OutputNotice{Epoch: 2}) })
			h.run(time.Hour, 0)
			if len(h.store.finalized) != 1 || h.store.finalized[0].Status != StatusCompleted {
				t.Fatalf("finalized: %+v", h.store.finalized)
			}
			if !slices.Equal(local, c.local) || !slices.Equal(regular, c.regular) {
				t.Fatalf("local activities %v, regular %v; want %v and %v", local, regular, c.local, c.regular)
			}
		})
	}
}
