package research_test

import (
	"context"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// TestWrites: a Create fills in the timestamps the tools answer with; an
// update sets only the given columns; a key sees only its own projects.
func TestWrites(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		cl := research.Claim{ID: "cl_1", ProjectID: "prj_a", Statement: "s", Confidence: "medium", Status: "active"}
		if err := research.CreateClaim(ctx, db, &cl); err != nil || cl.CreatedAt.IsZero() {
			t.Fatalf("create claim: %v, created_at %v", err, cl.CreatedAt)
		}
		if err := research.UpdateClaim(ctx, db, "cl_1", map[string]any{"status": "supported"}); err != nil {
			t.Fatal(err)
		}
		got, err := research.ClaimInProject(ctx, db, "prj_a", "cl_1")
		if err != nil || got.Status != "supported" || got.Confidence != "medium" {
			t.Fatalf("updated claim %+v %v", got, err)
		}
		for _, id := range []string{"prj_a", "prj_b", "prj_c"} {
			p := research.Project{ID: id, Name: "name-" + id, CreatedBy: "op"}
			if err := research.CreateProject(ctx, db, &p); err != nil || p.CreatedAt.IsZero() {
				t.Fatalf("create project: %v", err)
			}
		}
		pid := func(p research.Project) string { return p.ID }
		all, err := research.VisibleProjects(ctx, db, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "all projects", ids(all, pid), []string{"prj_a", "prj_b", "prj_c"})
		mine, err := research.VisibleProjects(ctx, db, false, []string{"prj_c", "prj_a"})
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "a key's projects", ids(mine, pid), []string{"prj_a", "prj_c"})
		if none, _ := research.VisibleProjects(ctx, db, false, nil); len(none) != 0 {
			t.Fatalf("a key bound to no project sees %v", ids(none, pid))
		}
		st := research.CandidateStage{ID: "stg_1", CandidateID: "cand_1", StageKind: "artifact", StageRef: "art_1"}
		if err := research.CreateCandidateStage(ctx, db, &st); err != nil || st.CreatedAt.IsZero() {
			t.Fatalf("create stage: %v", err)
		}
		a := research.Artifact{ID: "art_1", ProjectID: "prj_a", TargetType: "experiment", TargetID: "exp_1", Role: "plan", Path: "plan.md",
			UploadTokenHash: "t1", BlobKey: "k"}
		if err := research.CreateArtifact(ctx, db, &a); err != nil || a.CreatedAt.IsZero() {
			t.Fatalf("create artifact: %v", err)
		}
	})
}
