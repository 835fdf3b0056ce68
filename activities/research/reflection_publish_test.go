package research

import (
	"context"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/models/modelstest"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// A follow-up whose name an experiment took after the change spec was
// checked is not created, and publish says so instead of dropping it
// silently; the other follow-up is created, and a retried publish writes
// nothing twice.
func TestPublishReflection_ReportsAFollowUpWhoseNameWasTaken(t *testing.T) {
	db := modelstest.SQLite(t)
	blobs, err := blobstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	spec := `{"summary": "two follow-ups", "claim_changes": [],
	  "follow_up_experiments": [{"name": "taken-name", "intent": "a"}, {"name": "fresh-name", "intent": "b"}]}`
	if _, err := blobs.Put(ctx, "spec", strings.NewReader(spec), 0); err != nil {
		t.Fatal(err)
	}
	rows := []any{
		&models.Project{ID: "prj_p", Name: "publish", CreatedBy: "op"},
		&models.Reflection{ID: "rfl_1", ProjectID: "prj_p", Status: "consolidating"},
		&models.Artifact{ID: "art_spec", ProjectID: "prj_p", TargetType: "reflection", TargetID: "rfl_1", Role: "change_spec",
			Path: "change_spec.json", UploadTokenHash: "h1", BlobKey: "spec"},
		&models.Experiment{ID: "exp_holder", ProjectID: "prj_p", Name: "taken-name", Status: "planned"},
	}
	for _, r := range rows {
		if err := db.Create(r).Error; err != nil {
			t.Fatal(err)
		}
	}
	a := &ReflectionActivities{DB: db, Blobs: blobs}
	in := wf.PublishInput{ProjectID: "prj_p", ReflectionID: "rfl_1", ChangeSpecID: "art_spec"}
	res, err := a.PublishReflection(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.FollowUps) != 1 || res.FollowUps[0].Name != "fresh-name" {
		t.Fatalf("created follow-ups: %+v", res.FollowUps)
	}
	if len(res.FollowUpsSkipped) != 1 || res.FollowUpsSkipped[0].Name != "taken-name" || res.FollowUpsSkipped[0].ExistingExperimentID != "exp_holder" {
		t.Fatalf("skipped follow-ups: %+v", res.FollowUpsSkipped)
	}
	again, err := a.PublishReflection(ctx, in)
	if err != nil || len(again.FollowUps) != 1 || again.FollowUps[0].ExperimentID != res.FollowUps[0].ExperimentID {
		t.Fatalf("retried publish: %+v %v", again, err)
	}
	var n int64
	db.Model(&models.Experiment{}).Where("project_id = ?", "prj_p").Count(&n)
	if n != 2 {
		t.Fatalf("experiments after two publishes: %d, want the holder and one follow-up", n)
	}
}
