package research_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

func TestSandbox_MirrorNeverRevivesATerminalRowAndPullsAreIdempotent(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
		sb := research.Sandbox{UID: "sbx_1", ProjectID: "prj_1", Provider: "local", InstanceType: "local-small", PublicKey: "ssh-ed25519 AAAA", ExpiresAt: now.Add(time.Hour)}
		if err := research.CreateSandbox(ctx, db, sb); err != nil {
			t.Fatal(err)
		}
		up := research.SandboxUpdate{UID: "sbx_1", Status: research.SandboxRunning, Host: "127.0.0.1", Port: 40022, User: "sandbox", Workdir: "/w", ExpiresAt: now.Add(time.Hour)}
		if err := research.MirrorSandbox(ctx, db, up, now); err != nil {
			t.Fatal(err)
		}
		if active, _ := research.ListSandboxes(ctx, db, "prj_1", "", true); len(active) != 1 || active[0].SSHPort != 40022 {
			t.Fatalf("active after running: %+v", active)
		}
		if err := research.MirrorSandbox(ctx, db, research.SandboxUpdate{UID: "sbx_1", Status: research.SandboxTerminated, ExpiresAt: up.ExpiresAt}, now); err != nil {
			t.Fatal(err)
		}
		if err := research.MirrorSandbox(ctx, db, up, now); err != nil { // a late, retried mirror write
			t.Fatal(err)
		}
		got, err := research.GetSandbox(ctx, db, "prj_1", "sbx_1")
		if err != nil || got.Status != research.SandboxTerminated || got.EndedAt == nil || got.Active() {
			t.Fatalf("after a late write: %+v %v", got, err)
		}
		if _, err := research.GetSandbox(ctx, db, "prj_other", "sbx_1"); err == nil {
			t.Fatal("another project's sandbox was found")
		}
		pull := research.SandboxPull{SandboxUID: "sbx_1", Path: "out.txt", SHA256: "aa", ObjectID: "obj_1"}
		for i := 0; i < 2; i++ {
			if err := research.RecordPull(ctx, db, pull); err != nil {
				t.Fatal(err)
			}
		}
		if pulls, _ := research.Pulls(ctx, db, "sbx_1"); len(pulls) != 1 {
			t.Fatalf("pulls %+v", pulls)
		}
	})
}
