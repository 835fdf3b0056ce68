package research

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
)

// TestSandbox_ReprovisionKeepsThePortOrRecordsTheNewEndpoint: the first
// re-provision (same process, server alive) answers the same endpoint and
// changes nothing; the second (after a restart, port taken) answers a new
// port, which the state and the mirror then carry; expiry is unchanged.
func TestSandbox_ReprovisionKeepsThePortOrRecordsTheNewEndpoint(t *testing.T) {
	h := newSandboxHarness(t, time.Hour)
	h.provisions()
	h.destroys(0)
	again := h.in
	again.Port = h.ep.Port
	moved := h.ep
	moved.Port = 40999
	h.env.OnActivity(ProvisionSandboxActivity, mock.Anything, again).Return(h.ep, nil).Once()
	h.env.OnActivity(ProvisionSandboxActivity, mock.Anything, again).Return(moved, nil).Once()
	var same, after SandboxState
	h.at(5*time.Minute, func() { h.env.SignalWorkflow(SandboxReprovisionSignal, SandboxReprovision{Reason: "worker start"}) })
	h.at(6*time.Minute, func() { same = h.query() })
	h.at(7*time.Minute, func() { h.env.SignalWorkflow(SandboxReprovisionSignal, SandboxReprovision{Reason: "worker start"}) })
	h.at(8*time.Minute, func() { after = h.query() })
	h.at(9*time.Minute, func() { h.env.SignalWorkflow(SandboxReleaseSignal, SandboxRelease{Reason: "done"}) })
	st := h.run()
	if same.Endpoint != h.ep || same.Revision != 0 {
		t.Fatalf("an idempotent re-provision changed the state: %+v", same)
	}
	if after.Endpoint != moved || after.Revision != 1 || after.Status != SandboxRunning || !after.ExpiresAt.Equal(sandboxT0.Add(time.Hour)) {
		t.Fatalf("after a re-provision on a new port: %+v", after)
	}
	if st.Status != SandboxTerminated || st.EndReason != SandboxEndReleased {
		t.Fatalf("ended %+v", st)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	sawMoved := false
	for _, r := range h.recs {
		sawMoved = sawMoved || r.Status == SandboxRunning && r.Endpoint == moved
	}
	if !sawMoved {
		t.Fatalf("the new endpoint was never mirrored: %+v", h.recs)
	}
}
