package research_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// TestSandboxQueries: stranded means provisioning and older than the
// cutoff; an experiment's current sandbox is its newest live one.
func TestSandboxQueries(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		t0 := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
		sb := func(uid, exp, status string, created int) *research.Sandbox {
			return &research.Sandbox{UID: uid, ProjectID: "prj_a", ExperimentID: exp, Provider: "local", InstanceType: "small", PublicKey: "k",
				Status: status, ExpiresAt: t0.Add(time.Hour), CreatedAt: t0.Add(time.Duration(created) * time.Minute)}
		}
		mustCreate(t, db,
			sb("sb_old", "exp_1", research.SandboxProvisioning, 1),
			sb("sb_run", "exp_1", research.SandboxRunning, 5),
			sb("sb_young", "exp_2", research.SandboxProvisioning, 20),
			sb("sb_gone", "exp_2", research.SandboxTerminated, 30),
		)
		uid := func(s research.Sandbox) string { return s.UID }
		stranded, err := research.StrandedSandboxes(ctx, db, "prj_a", t0.Add(10*time.Minute), 50)
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "stranded", ids(stranded, uid), []string{"sb_old"})
		if other, _ := research.StrandedSandboxes(ctx, db, "prj_b", t0.Add(time.Hour), 50); len(other) != 0 {
			t.Fatalf("another project's stranded sandboxes: %v", ids(other, uid))
		}
		for exp, want := range map[string]string{"exp_1": "sb_run", "exp_2": "sb_young"} {
			got, err := research.CurrentSandbox(ctx, db, exp)
			if err != nil || got.UID != want {
				t.Fatalf("current sandbox of %s: %q %v, want %s", exp, got.UID, err, want)
			}
		}
		if _, err := research.CurrentSandbox(ctx, db, "exp_3"); !errors.Is(err, research.ErrNoRecord) {
			t.Fatalf("an experiment without a sandbox: %v", err)
		}

		mustCreate(t, db, &research.Claim{ID: "cl_1", ProjectID: "prj_a", Statement: "s", Confidence: "low", Status: "active"},
			&research.Experiment{ID: "exp_1", ProjectID: "prj_a", Name: "lr-sweep", Status: "running"})
		if ok, err := research.ClaimExists(ctx, db, "prj_a", "cl_1"); !ok || err != nil {
			t.Fatalf("own claim: %v %v", ok, err)
		}
		if ok, _ := research.ClaimExists(ctx, db, "prj_b", "cl_1"); ok {
			t.Fatal("another project's claim exists")
		}
		if e, err := research.ExperimentNamed(ctx, db, "prj_a", "lr-sweep"); err != nil || e.ID != "exp_1" {
			t.Fatalf("experiment by name: %v %v", e.ID, err)
		}
		if _, err := research.ExperimentNamed(ctx, db, "prj_b", "lr-sweep"); !errors.Is(err, research.ErrNoRecord) {
			t.Fatalf("another project's name: %v", err)
		}
	})
}
