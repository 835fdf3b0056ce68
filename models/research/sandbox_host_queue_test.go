package research_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// The host queue of a local sandbox outlives its workflow: the mirror
// keeps the last one named, also once the sandbox ended without one.
func TestSandbox_MirrorKeepsTheHostQueueOnceTheSandboxEnded(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
		sb := research.Sandbox{UID: "sbx_q", ProjectID: "prj_1", Provider: "local", InstanceType: "local-small", PublicKey: "ssh-ed25519 AAAA", ExpiresAt: now}
		if err := research.CreateSandbox(ctx, db, sb); err != nil {
			t.Fatal(err)
		}
		for _, up := range []research.SandboxUpdate{
			{UID: "sbx_q", Status: research.SandboxRunning, Host: "127.0.0.1", Port: 40022, HostQueue: "gatehouse-host-a"},
			{UID: "sbx_q", Status: research.SandboxTerminated},
		} {
			if err := research.MirrorSandbox(ctx, db, up, now); err != nil {
				t.Fatal(err)
			}
		}
		got, err := research.GetSandbox(ctx, db, "prj_1", "sbx_q")
		if err != nil || got.Status != research.SandboxTerminated || got.HostQueue != "gatehouse-host-a" {
			t.Fatalf("ended sandbox %+v %v: the host queue must stay", got, err)
		}
	})
}
