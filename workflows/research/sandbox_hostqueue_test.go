package research

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
)

const testHostQueue = "gatehouse" + SandboxHostQueueSuffix + "worker-a"

// queues records, per activity type, the task queue of every attempt.
func (h *sandboxHarness) queues() map[string][]string {
	got := map[string][]string{}
	h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		h.mu.Lock()
		defer h.mu.Unlock()
		got[info.ActivityType.Name] = append(got[info.ActivityType.Name], info.TaskQueue)
	})
	return got
}

// reprovisionsAt expects one re-provision of the running sandbox, answering ep.
func (h *sandboxHarness) reprovisionsAt(offset time.Duration, ep SandboxEndpoint) {
	again := h.in
	again.Port = h.ep.Port
	h.env.OnActivity(ProvisionSandboxActivity, mock.Anything, again).Return(ep, nil).Once()
	h.at(offset, func() { h.env.SignalWorkflow(SandboxReprovisionSignal, SandboxReprovision{Reason: "worker start"}) })
}

// TestSandbox_LocalSandboxIsReprovisionedAndDestroyedOnTheHostThatHoldsIt:
// provisioning runs on the shared queue and answers its worker's host
// queue; the re-provision and the teardown then run on that host queue,
// while the mirror writes stay on the shared queue.
func TestSandbox_LocalSandboxIsReprovisionedAndDestroyedOnTheHostThatHoldsIt(t *testing.T) {
	h := newSandboxHarness(t, time.Hour)
	h.ep.HostQueue = testHostQueue
	q := h.queues()
	h.provisions()
	h.reprovisionsAt(5*time.Minute, h.ep)
	h.destroys(0)
	var mid SandboxState
	h.at(6*time.Minute, func() { mid = h.query() })
	h.at(9*time.Minute, func() { h.env.SignalWorkflow(SandboxReleaseSignal, SandboxRelease{Reason: "done"}) })
	st := h.run()
	if mid.Endpoint.HostQueue != testHostQueue || mid.Revision != 0 {
		t.Fatalf("state while running: %+v", mid)
	}
	if st.Status != SandboxTerminated || st.EndReason != SandboxEndReleased {
		t.Fatalf("ended %+v", st)
	}
	shared := q[RecordSandboxActivity][0]
	if shared == testHostQueue {
		t.Fatalf("the mirror write ran on the host queue")
	}
	want := map[string][]string{
		ProvisionSandboxActivity: {shared, testHostQueue},
		DestroySandboxActivity:   {testHostQueue},
	}
	for name, queues := range want {
		if !equalStrings(q[name], queues) {
			t.Errorf("%s ran on %v, want %v", name, q[name], queues)
		}
	}
	for _, got := range q[RecordSandboxActivity] {
		if got != shared {
			t.Errorf("a mirror write ran on %s, want the shared queue %s", got, shared)
		}
	}
}

// TestSandbox_KubernetesSandboxStaysOnTheSharedQueue: a provider any
// worker can reach answers no host queue, so every activity stays on the
// workflow's shared queue.
func TestSandbox_KubernetesSandboxStaysOnTheSharedQueue(t *testing.T) {
	h := newSandboxHarness(t, time.Hour)
	h.in.Provider, h.in.InstanceType = "kubernetes", "cpu-small"
	h.ep = SandboxEndpoint{Host: "10.0.0.7", Port: 22, User: "sandbox", Workdir: "/workspace"}
	q := h.queues()
	h.provisions()
	h.reprovisionsAt(5*time.Minute, h.ep)
	h.destroys(0)
	h.at(9*time.Minute, func() { h.env.SignalWorkflow(SandboxReleaseSignal, SandboxRelease{Reason: "done"}) })
	st := h.run()
	if st.Status != SandboxTerminated {
		t.Fatalf("ended %+v", st)
	}
	shared := q[RecordSandboxActivity][0]
	if !equalStrings(q[ProvisionSandboxActivity], []string{shared, shared}) || !equalStrings(q[DestroySandboxActivity], []string{shared}) {
		t.Fatalf("provision ran on %v, destroy on %v; want the shared queue %s", q[ProvisionSandboxActivity], q[DestroySandboxActivity], shared)
	}
}

// TestSandbox_LocalSandboxWhoseHostNeverReturnsEndsCleanupPending: when
// the destroy on the host queue fails for good (a final error stands in
// for the schedule-to-start timeout of a host that never polls again),
// the workflow ends instead of waiting forever, and the sandbox stays
// cleanup_pending with the reason.
func TestSandbox_LocalSandboxWhoseHostNeverReturnsEndsCleanupPending(t *testing.T) {
	h := newSandboxHarness(t, 10*time.Minute)
	h.ep.HostQueue = testHostQueue
	q := h.queues()
	h.provisions()
	want := SandboxDestroy{UID: h.in.UID, Provider: h.in.Provider}
	gone := temporal.NewNonRetryableApplicationError("activity ScheduleToStart timeout", "host_gone", nil)
	h.env.OnActivity(DestroySandboxActivity, mock.Anything, want).Return(gone).Twice()
	st := h.run()
	if st.Status != SandboxCleanupPending || !strings.Contains(st.Error, testHostQueue) {
		t.Fatalf("ended %+v", st)
	}
	if got := h.statuses(); !equalStrings(got, []string{SandboxProvisioning, SandboxRunning, SandboxCleanupPending}) {
		t.Fatalf("mirrored %v", got)
	}
	if !equalStrings(q[DestroySandboxActivity], []string{testHostQueue, testHostQueue}) {
		t.Fatalf("destroy ran on %v", q[DestroySandboxActivity])
	}
}
