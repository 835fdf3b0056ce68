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

// TestLandArtifact: a landing is recorded once, with deliver run inside
// its transaction; a deliver that fails records nothing; a second landing
// and an unknown artifact are ErrArtifactLanded; no other artifact is
// touched.
func TestLandArtifact(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		art := func(id, project string) *research.Artifact {
			return &research.Artifact{ID: id, ProjectID: project, TargetType: "experiment", TargetID: "exp_1", Role: "report",
				Path: "report.md", UploadTokenHash: "tok_" + id, BlobKey: "pending/" + id}
		}
		mustCreate(t, db, art("art_a", "prj_a"), art("art_b", "prj_b"))
		landing := research.ArtifactLanding{BlobKey: "k/art_a/1", SHA256: "abc", Size: 42, Problems: []string{"no title", "empty"}, UploadedAt: at}

		refused := errors.New("workflow unreachable")
		if err := research.LandArtifact(ctx, db, "art_a", landing, func() error { return refused }); !errors.Is(err, refused) {
			t.Fatalf("failed delivery: %v", err)
		}
		if a := artifact(t, db, "art_a"); a.UploadedAt != nil || a.BlobKey != "pending/art_a" {
			t.Fatalf("a failed delivery recorded %+v", a)
		}

		delivered := 0
		if err := research.LandArtifact(ctx, db, "art_a", landing, func() error { delivered++; return nil }); err != nil || delivered != 1 {
			t.Fatalf("landing: %v (delivered %d)", err, delivered)
		}
		a := artifact(t, db, "art_a")
		if a.UploadedAt == nil || !a.UploadedAt.Equal(at) || a.BlobKey != "k/art_a/1" || a.SHA256 != "abc" || a.Size != 42 ||
			a.Valid || a.Problems != "no title\nempty" {
			t.Fatalf("landed %+v", a)
		}

		again := research.ArtifactLanding{BlobKey: "k/art_a/2", SHA256: "def", Size: 1, UploadedAt: at.Add(time.Minute)}
		for _, id := range []string{"art_a", "art_none"} {
			if err := research.LandArtifact(ctx, db, id, again, func() error { delivered++; return nil }); !errors.Is(err, research.ErrArtifactLanded) {
				t.Fatalf("landing %s again: %v", id, err)
			}
		}
		if delivered != 1 {
			t.Fatalf("delivered %d times", delivered)
		}
		if a := artifact(t, db, "art_a"); a.BlobKey != "k/art_a/1" || a.SHA256 != "abc" {
			t.Fatalf("a second landing swapped the bytes: %+v", a)
		}
		if b := artifact(t, db, "art_b"); b.UploadedAt != nil || b.BlobKey != "pending/art_b" {
			t.Fatalf("another project's artifact changed: %+v", b)
		}

		// No problems: valid.
		if err := research.LandArtifact(ctx, db, "art_b", again, func() error { return nil }); err != nil {
			t.Fatal(err)
		}
		if b := artifact(t, db, "art_b"); !b.Valid || b.Problems != "" || b.BlobKey != "k/art_a/2" {
			t.Fatalf("valid landing %+v", b)
		}
	})
}

func artifact(t *testing.T, db *gorm.DB, id string) research.Artifact {
	t.Helper()
	a, err := research.ArtifactByID(context.Background(), db, id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
