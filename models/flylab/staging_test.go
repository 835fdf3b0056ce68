package flylab_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	fl "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestStaging_StagedRowsAreReadByNobodyUntilPublished reads a staged batch
// and bundle the way every reader does (a bundle by id, the run count, the
// console's ledger list filter), then publishes them: only then are they
// read, and publishing again changes nothing.
func TestStaging_StagedRowsAreReadByNobodyUntilPublished(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		now := time.Now().UTC()
		if err := fl.CreateOnce(ctx, db, &fl.Batch{ID: "batch_1", SessionID: "session_s", ExperimentID: "exp_1",
			OperationKey: "session_s/run_fly_simulation/op", RunContentHash: "sha256:x", Body: "{}", Staged: true, CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
		if err := fl.CreateOnce(ctx, db, &fl.EvidenceBundle{ID: "bundle_1", SessionID: "session_s",
			OperationKey: "session_s/save_fly_evidence/op", ManifestHash: "sha256:y", Export: "{}", Staged: true, CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
		visible := func() (bool, int64) {
			n, err := fl.CountBatches(ctx, db, "exp_1")
			if err != nil {
				t.Fatal(err)
			}
			return bundleVisible(ctx, db), n
		}
		if b, n := visible(); b || n != 0 {
			t.Fatalf("staged rows are read: bundle %v, batches %d", b, n)
		}
		for _, key := range []string{"session_s/run_fly_simulation/op", "session_s/save_fly_evidence/op", "session_s/save_fly_evidence/op"} {
			if err := fl.PublishStaged(ctx, db, "session_s", key); err != nil {
				t.Fatal(err)
			}
		}
		if b, n := visible(); !b || n != 1 {
			t.Fatalf("published rows are not read: bundle %v, batches %d", b, n)
		}
		if err := fl.PublishStaged(ctx, db, "session_other", "session_s/run_fly_simulation/op"); err != nil {
			t.Fatal(err)
		}
	})
}

// bundleVisible reports whether BundleByID serves bundle_1.
func bundleVisible(ctx context.Context, db *gorm.DB) bool {
	_, err := fl.BundleByID(ctx, db, "bundle_1")
	return err == nil
}
