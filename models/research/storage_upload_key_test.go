package research_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// TestSweep_ReclaimsAnUploadKeyOnceItsURLsExpired: after completion the
// attempt's key stays recorded while its URLs live (a presigned PUT may
// still write there); the first sweep after they expire reclaims it once,
// and leaves the bytes the object reads.
func TestSweep_ReclaimsAnUploadKeyOnceItsURLsExpired(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		o := research.StorageObject{ID: "obj_k1", ProjectID: "prj", Name: "a.txt", Kind: "other", Path: "a.txt", SHA256: "ab", SizeBytes: 2,
			BlobKey: "research/prj/storage/obj_k1", CreatedBy: "a"}
		if _, _, err := research.SubmitObject(ctx, db, o, now, time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := research.SetUploadToken(ctx, db, "obj_k1", "hash", "research/prj/storage/obj_k1.upload-1", now.Add(15*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := research.BeginCompletion(ctx, db, "obj_k1"); err != nil {
			t.Fatal(err)
		}
		got, won, err := research.BindCompletion(ctx, db, "obj_k1", "research/prj/storage/obj_k1.bytes-1", now, time.Hour)
		if err != nil || !won || got.BlobKey != "research/prj/storage/obj_k1.bytes-1" || got.Status != research.StorageAvailable {
			t.Fatalf("bind %+v %v %v", got, won, err)
		}
		if _, reclaim, _ := research.SweepExpired(ctx, db, now.Add(10*time.Minute), 100); len(reclaim) != 0 {
			t.Fatalf("reclaimed %v while the upload URLs live", reclaim)
		}
		_, reclaim, err := research.SweepExpired(ctx, db, now.Add(16*time.Minute), 100)
		if err != nil || len(reclaim) != 1 || reclaim[0] != "research/prj/storage/obj_k1.upload-1" {
			t.Fatalf("reclaimed %v %v", reclaim, err)
		}
		if _, again, _ := research.SweepExpired(ctx, db, now.Add(17*time.Minute), 100); len(again) != 0 {
			t.Fatalf("reclaimed twice: %v", again)
		}
	})
}
