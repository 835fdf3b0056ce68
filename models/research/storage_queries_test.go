package research_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// TestFindObjects: the filters, the hidden expired and deleted objects,
// the total beside one page, and the newest available version by name.
func TestFindObjects(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		t0 := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
		obj := func(id, project, name string, version int, kind, status string, created int) *research.StorageObject {
			return &research.StorageObject{ID: id, ProjectID: project, Name: name, Version: version, Kind: kind, Path: name, SHA256: "sha_" + id,
				Status: status, BlobKey: "k/" + id, CreatedBy: "agent", CreatedAt: t0.Add(time.Duration(created) * time.Minute)}
		}
		mustCreate(t, db,
			obj("obj_d1", "prj_a", "data", 1, "dataset", research.StorageAvailable, 1),
			obj("obj_d2", "prj_a", "data", 2, "dataset", research.StorageAvailable, 2),
			obj("obj_d3", "prj_a", "data", 3, "dataset", research.StorageUploading, 3),
			obj("obj_m1", "prj_a", "model", 1, "model", research.StorageExpired, 4),
			obj("obj_x1", "prj_a", "gone", 1, "other", research.StorageDeleted, 5),
			obj("obj_b1", "prj_b", "data", 1, "dataset", research.StorageAvailable, 6),
		)
		oid := func(o research.StorageObject) string { return o.ID }
		for _, tc := range []struct {
			name  string
			f     research.StorageFilter
			want  []string
			total int64
		}{
			{"live objects, newest first", research.StorageFilter{ProjectID: "prj_a", Limit: 50}, []string{"obj_d3", "obj_d2", "obj_d1"}, 3},
			{"with expired", research.StorageFilter{ProjectID: "prj_a", IncludeExpired: true, Limit: 50}, []string{"obj_m1", "obj_d3", "obj_d2", "obj_d1"}, 4},
			{"status", research.StorageFilter{ProjectID: "prj_a", Status: research.StorageDeleted, Limit: 50}, []string{"obj_x1"}, 1},
			{"name and version", research.StorageFilter{ProjectID: "prj_a", Name: "data", Version: 2, Limit: 50}, []string{"obj_d2"}, 1},
			{"kind", research.StorageFilter{ProjectID: "prj_a", Kind: "model", IncludeExpired: true, Limit: 50}, []string{"obj_m1"}, 1},
			{"id", research.StorageFilter{ProjectID: "prj_a", ID: "obj_d1", Limit: 50}, []string{"obj_d1"}, 1},
			{"another project's id", research.StorageFilter{ProjectID: "prj_a", ID: "obj_b1", Limit: 50}, []string{}, 0},
			{"a page", research.StorageFilter{ProjectID: "prj_a", Limit: 1, Offset: 1}, []string{"obj_d2"}, 3},
		} {
			got, total, err := research.FindObjects(ctx, db, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			sameIDs(t, tc.name, ids(got, oid), tc.want)
			if total != tc.total {
				t.Fatalf("%s: total %d, want %d", tc.name, total, tc.total)
			}
		}
		o, err := research.LatestAvailableObject(ctx, db, "prj_a", "data")
		if err != nil || o.ID != "obj_d2" {
			t.Fatalf("newest available data: %v %v", o.ID, err)
		}
		if _, err := research.LatestAvailableObject(ctx, db, "prj_a", "model"); !errors.Is(err, research.ErrNoRecord) {
			t.Fatalf("an expired object is not available: %v", err)
		}
		if err := research.CreateDownloadToken(ctx, db, "h1", "obj_d2", t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		tok, err := research.DownloadTokenByHash(ctx, db, "h1")
		if err != nil || tok.ObjectID != "obj_d2" || !tok.ExpiresAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("download token: %+v %v", tok, err)
		}
		if _, err := research.DownloadTokenByHash(ctx, db, "h2"); !errors.Is(err, research.ErrNoRecord) {
			t.Fatalf("unknown download token: %v", err)
		}
		if err := db.Model(&research.StorageObject{}).Where("id = ?", "obj_d3").Update("upload_token_hash", "up1").Error; err != nil {
			t.Fatal(err)
		}
		if o, err := research.ObjectByUploadTokenHash(ctx, db, "up1"); err != nil || o.ID != "obj_d3" {
			t.Fatalf("by upload token: %v %v", o.ID, err)
		}
	})
}

// TestPinnedObjectsOf: only the experiment's own available, pinned objects
// of its project, by path then version.
func TestPinnedObjectsOf(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		obj := func(id, project, exp, path string, version int, status string, pinned bool) *research.StorageObject {
			return &research.StorageObject{ID: id, ProjectID: project, Name: path, Version: version, Kind: "other", Path: path, SHA256: "sha_" + id,
				Status: status, Pinned: pinned, ProducingExperimentID: exp, BlobKey: "k/" + id, CreatedBy: "agent"}
		}
		mustCreate(t, db,
			obj("obj_r2", "prj_a", "exp_1", "results/b.json", 1, research.StorageAvailable, true),
			obj("obj_m2", "prj_a", "exp_1", "metrics.json", 2, research.StorageAvailable, true),
			obj("obj_m1", "prj_a", "exp_1", "metrics.json", 1, research.StorageAvailable, true),
			obj("obj_u", "prj_a", "exp_1", "unpinned.json", 1, research.StorageAvailable, false),
			obj("obj_e", "prj_a", "exp_1", "expired.json", 1, research.StorageExpired, true),
			obj("obj_up", "prj_a", "exp_1", "uploading.json", 1, research.StorageUploading, true),
			obj("obj_o", "prj_a", "exp_2", "other.json", 1, research.StorageAvailable, true),
			obj("obj_p", "prj_b", "exp_1", "elsewhere.json", 1, research.StorageAvailable, true),
		)
		if page, err := research.PinnedObjectsOf(ctx, db, "prj_a", "exp_1", 2); err != nil || len(page) != 2 || page[1].ID != "obj_m2" {
			t.Fatalf("the first two: %v %v", page, err)
		}
		got, err := research.PinnedObjectsOf(ctx, db, "prj_a", "exp_1", 50)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, o := range got {
			order = append(order, o.ID)
		}
		if want := []string{"obj_m1", "obj_m2", "obj_r2"}; strings.Join(order, ",") != strings.Join(want, ",") {
			t.Fatalf("pinned objects of exp_1: %v, want %v", order, want)
		}
	})
}
