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

func obj(id, name, digest string) research.StorageObject {
	return research.StorageObject{ID: id, ProjectID: "p", Name: name, Kind: "dataset", Path: "d.bin", SHA256: digest, SizeBytes: 3,
		BlobKey: "research/p/storage/" + id, CreatedBy: "c"}
}

func code(err error) string {
	var me *research.Error
	if errors.As(err, &me) {
		return me.Code
	}
	return ""
}

func TestStorage_LifecycleIdempotencyKnownBytesPinAndSweep(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		ret := time.Hour
		a, created, err := research.SubmitObject(ctx, db, obj("o1", "data", "aa"), now, ret)
		if err != nil || !created || a.Status != research.StorageUploading || a.Version != 1 {
			t.Fatalf("submit: %+v %v %v", a, created, err)
		}
		again, created, err := research.SubmitObject(ctx, db, obj("o1b", "data", "aa"), now, ret)
		if err != nil || created || again.ID != "o1" {
			t.Fatalf("same name+digest not idempotent: %+v %v %v", again, created, err)
		}
		if err := research.BeginCompletion(ctx, db, "o1"); err != nil {
			t.Fatal(err)
		}
		bad, err := research.FinishCompletion(ctx, db, "o1", false, "sha256 mismatch", now, ret)
		if err != nil || bad.Status != research.StorageUploading || bad.LastError == "" {
			t.Fatalf("mismatch: %+v %v", bad, err)
		}
		if _, _, err := research.ObjectAction(ctx, db, "p", "o1", "pin", now, ret); code(err) != research.CodeConflict {
			t.Fatalf("pin while uploading: %v", err)
		}
		_ = research.BeginCompletion(ctx, db, "o1")
		ok, err := research.FinishCompletion(ctx, db, "o1", true, "", now, ret)
		if err != nil || ok.Status != research.StorageAvailable || !ok.ExpiresAt.Equal(now.Add(ret)) {
			t.Fatalf("complete: %+v %v", ok, err)
		}
		if err := research.BeginCompletion(ctx, db, "o1"); code(err) != research.CodeConflict {
			t.Fatalf("second completion: %v", err)
		}
		// Known bytes under another name are available at once, sharing the blob.
		b, _, err := research.SubmitObject(ctx, db, obj("o2", "copy", "aa"), now, ret)
		if err != nil || b.Status != research.StorageAvailable || b.BlobKey != ok.BlobKey {
			t.Fatalf("known bytes: %+v %v", b, err)
		}
		// A new digest under the same name is version 2.
		v2, _, err := research.SubmitObject(ctx, db, obj("o3", "data", "bb"), now, ret)
		if err != nil || v2.Version != 2 {
			t.Fatalf("version: %+v %v", v2, err)
		}
		if p, _, err := research.ObjectAction(ctx, db, "p", "o1", "pin", now, ret); err != nil || !p.Pinned || p.ExpiresAt != nil {
			t.Fatalf("pin: %+v %v", p, err)
		}
		later := now.Add(2 * ret)
		n, reclaim, err := research.SweepExpired(ctx, db, later, 100)
		if err != nil || n != 1 || len(reclaim) != 0 {
			t.Fatalf("sweep: %d %v %v (o2 expires; its blob is still o1's)", n, reclaim, err)
		}
		if o, _ := research.GetObject(ctx, db, "p", "o2"); o.Status != research.StorageExpired {
			t.Fatalf("o2 %s", o.Status)
		}
		if n, _, _ := research.SweepExpired(ctx, db, later, 100); n != 0 {
			t.Fatalf("a second sweep expired %d", n)
		}
		if _, _, err := research.ObjectAction(ctx, db, "p", "o2", "renew", later, ret); code(err) != research.CodeExpired {
			t.Fatalf("renew expired: %v", err)
		}
		u, _, err := research.ObjectAction(ctx, db, "p", "o1", "unpin", later, ret)
		if err != nil || u.Pinned || !u.ExpiresAt.Equal(later.Add(ret)) {
			t.Fatalf("unpin: %+v %v", u, err)
		}
		d, reclaim1, err := research.ObjectAction(ctx, db, "p", "o1", "delete", later, ret)
		if err != nil || d.Status != research.StorageDeleted || reclaim1 != ok.BlobKey {
			t.Fatalf("delete: %+v %q %v", d, reclaim1, err)
		}
		if _, _, err := research.ObjectAction(ctx, db, "q", "o1", "delete", later, ret); code(err) != research.CodeNotFound {
			t.Fatalf("other project: %v", err)
		}
	})
}

func TestFeed_SeqIsStableAndPagesBackwards(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		if _, created, err := research.RegisterHandle(ctx, db, research.FeedHandle{ProjectID: "p", Handle: "main", Role: "main"}, true); err != nil || !created {
			t.Fatal(err)
		}
		if _, _, err := research.RegisterHandle(ctx, db, research.FeedHandle{ProjectID: "p", Handle: "main", Role: "lens"}, true); code(err) != research.CodeConflict {
			t.Fatalf("new_voice on a taken handle: %v", err)
		}
		key := "k1"
		for i := 0; i < 5; i++ {
			p := research.FeedPost{ID: research.NewID("fp_"), ProjectID: "p", Handle: "main", Kind: "idea", Text: "t", AttachmentsJSON: "[]"}
			if i == 0 {
				p.IdempotencyKey, p.RequestHash = &key, "h"
			}
			if _, _, err := research.AppendPost(ctx, db, p); err != nil {
				t.Fatal(err)
			}
		}
		dup := research.FeedPost{ID: "x", ProjectID: "p", Handle: "main", Kind: "idea", Text: "t", AttachmentsJSON: "[]", IdempotencyKey: &key, RequestHash: "h"}
		if got, replayed, err := research.AppendPost(ctx, db, dup); err != nil || !replayed || got.Seq != 1 {
			t.Fatalf("replay: %+v %v %v", got, replayed, err)
		}
		dup.RequestHash = "other"
		if _, _, err := research.AppendPost(ctx, db, dup); code(err) != research.CodeConflict {
			t.Fatalf("key reuse: %v", err)
		}
		page, next, err := research.ListPosts(ctx, db, "p", 2, 0)
		if err != nil || len(page) != 2 || page[0].Seq != 5 || page[1].Seq != 4 || next != 4 {
			t.Fatalf("page 1: %v %d %v", page, next, err)
		}
		page, next, _ = research.ListPosts(ctx, db, "p", 2, next)
		if len(page) != 2 || page[0].Seq != 3 || next != 2 {
			t.Fatalf("page 2: %v %d", page, next)
		}
		page, next, _ = research.ListPosts(ctx, db, "p", 2, next)
		if len(page) != 1 || page[0].Seq != 1 || next != 0 {
			t.Fatalf("page 3: %v %d", page, next)
		}
	})
}

func TestLitReview_OneChangeAtATimeWithRevisions(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		zero := 0
		for _, ch := range []research.LitChange{
			{Op: "add", SectionID: "s1", Text: "# One"},
			{Op: "add", SectionID: "s2", Text: "# Two"},
			{Op: "add", SectionID: "s0", Text: "# Zero", Position: &zero, IdempotencyKey: "k"},
			{Op: "reorder", SectionID: "s2", Position: &zero},
			{Op: "edit", SectionID: "s1", Text: "# One, edited"},
			{Op: "delete", SectionID: "s0"},
		} {
			if _, _, err := research.ApplyLitChange(ctx, db, "p", ch); err != nil {
				t.Fatalf("%+v: %v", ch, err)
			}
		}
		if _, replayed, err := research.ApplyLitChange(ctx, db, "p", research.LitChange{Op: "add", SectionID: "s9", Text: "x", IdempotencyKey: "k"}); err != nil || !replayed {
			t.Fatalf("replay: %v %v", replayed, err)
		}
		if _, _, err := research.ApplyLitChange(ctx, db, "p", research.LitChange{Op: "edit", SectionID: "nope", Text: "x"}); code(err) != research.CodeNotFound {
			t.Fatalf("edit missing: %v", err)
		}
		ss, rev, err := research.Sections(ctx, db, "p")
		if err != nil || rev != 6 || len(ss) != 2 || ss[0].ID != "s2" || ss[1].Text != "# One, edited" {
			t.Fatalf("sections %+v rev %d %v", ss, rev, err)
		}
	})
}
