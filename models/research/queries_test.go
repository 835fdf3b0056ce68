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

func mustCreate(t *testing.T, db *gorm.DB, rows ...any) {
	t.Helper()
	for _, r := range rows {
		if err := db.Create(r).Error; err != nil {
			t.Fatal(err)
		}
	}
}

func ids[T any](rows []T, id func(T) string) []string {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, id(r))
	}
	return out
}

func sameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s = %v, want %v", what, got, want)
		}
	}
}

func artifactID(a research.Artifact) string { return a.ID }

// TestArtifactQueries: each listing keeps exactly the rows its doc names,
// in its order.
func TestArtifactQueries(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		at := func(m int) *time.Time { v := t0.Add(time.Duration(m) * time.Minute); return &v }
		art := func(id, typ, target, role string, attempt int, created int, uploaded *time.Time) *research.Artifact {
			return &research.Artifact{ID: id, ProjectID: "prj_a", TargetType: typ, TargetID: target, Role: role, Path: role + ".md",
				Attempt: attempt, UploadTokenHash: "tok_" + id, BlobKey: "k/" + id, UploadedAt: uploaded, CreatedAt: t0.Add(time.Duration(created) * time.Minute)}
		}
		mustCreate(t, db,
			// Submitted first, uploaded last.
			art("art_plan", "experiment", "exp_1", "plan", 1, 1, at(9)),
			art("art_report", "experiment", "exp_1", "report", 1, 2, at(3)),
			art("art_pending", "experiment", "exp_1", "graph", 1, 3, nil),
			art("art_old", "experiment", "exp_1", "plan", 0, 0, at(1)),
			art("art_ref", "reflection", "ref_1", "reflection_doc", 1, 4, at(4)),
		)
		mustCreate(t, db, &research.Artifact{ID: "art_other", ProjectID: "prj_b", TargetType: "experiment", TargetID: "exp_9", Role: "plan",
			Path: "plan.md", UploadTokenHash: "tok_other", BlobKey: "k/other", CreatedAt: t0})

		landed, err := research.LandedArtifacts(ctx, db, "experiment", "exp_1", 1)
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "landed (upload order)", ids(landed, artifactID), []string{"art_report", "art_plan"})
		attempt, err := research.AttemptArtifacts(ctx, db, "experiment", "exp_1", 1)
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "attempt (submission order)", ids(attempt, artifactID), []string{"art_plan", "art_report"})
		if none, _ := research.AttemptArtifacts(ctx, db, "reflection", "exp_1", 1); len(none) != 0 {
			t.Fatalf("another target type's artifacts: %v", ids(none, artifactID))
		}
		uploaded, err := research.UploadedArtifacts(ctx, db, "exp_1")
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "uploaded (every attempt)", ids(uploaded, artifactID), []string{"art_old", "art_plan", "art_report"})

		for _, tc := range []struct {
			name string
			f    research.ArtifactFilter
			want []string
		}{
			{"project, newest first", research.ArtifactFilter{ProjectID: "prj_a"}, []string{"art_ref", "art_pending", "art_report", "art_plan", "art_old"}},
			{"limit", research.ArtifactFilter{ProjectID: "prj_a", Limit: 2}, []string{"art_ref", "art_pending"}},
			{"ids", research.ArtifactFilter{ProjectID: "prj_a", IDs: []string{"art_old", "art_ref", "art_other"}}, []string{"art_ref", "art_old"}},
			{"target type", research.ArtifactFilter{ProjectID: "prj_a", TargetType: "reflection"}, []string{"art_ref"}},
			{"target and role", research.ArtifactFilter{ProjectID: "prj_a", TargetID: "exp_1", Role: "plan"}, []string{"art_plan", "art_old"}},
			{"another project", research.ArtifactFilter{ProjectID: "prj_b"}, []string{"art_other"}},
		} {
			got, err := research.FindArtifacts(ctx, db, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			sameIDs(t, tc.name, ids(got, artifactID), tc.want)
		}
		a, err := research.ArtifactByUploadTokenHash(ctx, db, "tok_art_report")
		if err != nil || a.ID != "art_report" {
			t.Fatalf("by upload token: %v %v", a.ID, err)
		}
		if _, err := research.ArtifactByUploadTokenHash(ctx, db, "tok_nope"); !errors.Is(err, research.ErrNoRecord) {
			t.Fatalf("unknown token: %v", err)
		}
	})
}

// TestReviewQueries: the pending human list drops expired, answered and
// agent requests; the project list filters by status, newest first.
func TestReviewQueries(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		req := func(id, project, role, status string, expires time.Time, created int) *research.ReviewRequest {
			r := openRequest(id, role, expires)
			r.ProjectID, r.Status, r.TargetID, r.CreatedAt = project, status, "exp_"+id, now.Add(time.Duration(created)*time.Minute)
			return &r
		}
		hour := now.Add(time.Hour)
		mustCreate(t, db,
			req("rr_h1", "prj_a", "human", research.ReviewRequested, hour, 2),
			req("rr_h2", "prj_b", "human", research.ReviewStarted, hour, 1),
			req("rr_hx", "prj_a", "human", research.ReviewRequested, now.Add(-time.Minute), 0),
			req("rr_hs", "prj_a", "human", research.ReviewSubmitted, hour, 3),
			req("rr_a", "prj_a", "design_reviewer", research.ReviewRequested, hour, 4),
		)
		pending, err := research.PendingHumanReviews(ctx, db, now, 500)
		if err != nil {
			t.Fatal(err)
		}
		rid := func(r research.ReviewRequest) string { return r.ID }
		sameIDs(t, "pending human reviews", ids(pending, rid), []string{"rr_h2", "rr_h1"})
		all, err := research.ProjectReviewRequests(ctx, db, "prj_a", "", 200)
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "project requests", ids(all, rid), []string{"rr_a", "rr_hs", "rr_h1", "rr_hx"})
		requested, err := research.ProjectReviewRequests(ctx, db, "prj_a", research.ReviewRequested, 2)
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "requested, limit 2", ids(requested, rid), []string{"rr_a", "rr_h1"})

		done, err := research.SubmittedReviews(ctx, db, "exp_rr_hs", "design")
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "submitted design reviews", ids(done, rid), []string{"rr_hs"})
		if other, _ := research.SubmittedReviews(ctx, db, "exp_rr_hs", "experiment"); len(other) != 0 {
			t.Fatalf("another kind's reviews: %v", ids(other, rid))
		}
		if open, _ := research.SubmittedReviews(ctx, db, "exp_rr_h1", "design"); len(open) != 0 {
			t.Fatalf("an unanswered request counted as submitted: %v", ids(open, rid))
		}

		sess := research.ReviewSession{ID: "rs_1", RequestID: "rr_h2", CallerSessionID: "c", OpenedByCredential: "cred"}
		mustCreate(t, db, &sess)
		if got, err := research.ReviewSessionOfRequest(ctx, db, "rr_h2"); err != nil || got.ID != "rs_1" {
			t.Fatalf("session of request: %v %v", got.ID, err)
		}
		if got, err := research.ReviewSessionByID(ctx, db, "rs_1"); err != nil || got.RequestID != "rr_h2" {
			t.Fatalf("session by id: %v %v", got.RequestID, err)
		}
		if _, err := research.ReviewSessionOfRequest(ctx, db, "rr_h1"); !errors.Is(err, research.ErrNoRecord) {
			t.Fatalf("a request without a session: %v", err)
		}
		if got, err := research.ReviewRequestByID(ctx, db, "rr_a"); err != nil || got.Role != "design_reviewer" {
			t.Fatalf("request by id: %v %v", got.Role, err)
		}
	})
}

// TestProjectScopedQueries: an id of another project is unknown; the open
// and published reflection reads pick the row their docs name.
func TestProjectScopedQueries(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		minute := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
		exp := func(id, project, name, status string, created int) *research.Experiment {
			return &research.Experiment{ID: id, ProjectID: project, Name: name, Status: status, CreatedAt: minute(created), UpdatedAt: minute(100 - created)}
		}
		mustCreate(t, db,
			exp("exp_1", "prj_a", "one", "running", 1),
			exp("exp_2", "prj_a", "two", "complete", 2),
			exp("exp_3", "prj_a", "three", "planned", 3),
			exp("exp_4", "prj_b", "four", "running", 0),
		)
		eid := func(e research.Experiment) string { return e.ID }
		all, err := research.ProjectExperiments(ctx, db, "prj_a")
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "project experiments", ids(all, eid), []string{"exp_1", "exp_2", "exp_3"})
		open, err := research.OpenExperiments(ctx, db, "prj_a")
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "open experiments", ids(open, eid), []string{"exp_1", "exp_3"})
		recent, err := research.RecentExperiments(ctx, db, 2)
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "recently updated", ids(recent, eid), []string{"exp_4", "exp_1"})
		if _, err := research.ExperimentInProject(ctx, db, "prj_b", "exp_1"); !errors.Is(err, research.ErrNoRecord) {
			t.Fatalf("another project's experiment: %v", err)
		}
		if e, err := research.ExperimentInProject(ctx, db, "prj_a", "exp_1"); err != nil || e.Name != "one" {
			t.Fatalf("own experiment: %v %v", e.Name, err)
		}

		pa := "prj_a"
		pub := func(m int) *time.Time { v := minute(m); return &v }
		mustCreate(t, db,
			&research.Reflection{ID: "ref_old", ProjectID: "prj_a", Status: "published", LensesJSON: "[]", CorpusJSON: "[]", PublishedAt: pub(10), CreatedAt: minute(1)},
			&research.Reflection{ID: "ref_new", ProjectID: "prj_a", Status: "published", LensesJSON: "[]", CorpusJSON: "[]", PublishedAt: pub(20), CreatedAt: minute(2)},
			&research.Reflection{ID: "ref_open", ProjectID: "prj_a", OpenProject: &pa, Status: "reflecting", LensesJSON: "[]", CorpusJSON: "[]", CreatedAt: minute(0)},
			&research.Reflection{ID: "ref_b", ProjectID: "prj_b", Status: "abandoned", LensesJSON: "[]", CorpusJSON: "[]", CreatedAt: minute(5)},
		)
		check := func(what string, r research.Reflection, err error, want string) {
			t.Helper()
			if err != nil || r.ID != want {
				t.Fatalf("%s = %q, %v; want %s", what, r.ID, err, want)
			}
		}
		r, err := research.LatestPublishedReflection(ctx, db, "prj_a", "")
		check("latest published", r, err, "ref_new")
		r, err = research.LatestPublishedReflection(ctx, db, "prj_a", "ref_new")
		check("latest published but ref_new", r, err, "ref_old")
		if _, err := research.LatestPublishedReflection(ctx, db, "prj_b", ""); !errors.Is(err, research.ErrNoRecord) {
			t.Fatalf("nothing published: %v", err)
		}
		r, err = research.OpenReflection(ctx, db, "prj_a")
		check("open", r, err, "ref_open")
		r, err = research.LatestReflection(ctx, db, "prj_a")
		check("latest (open first)", r, err, "ref_open")
		r, err = research.LatestReflection(ctx, db, "prj_b")
		check("latest (none open)", r, err, "ref_b")
		if _, err := research.ReflectionInProject(ctx, db, "prj_b", "ref_open"); !errors.Is(err, research.ErrNoRecord) {
			t.Fatalf("another project's wave: %v", err)
		}
		refs, err := research.ProjectReflections(ctx, db, "prj_a", 2)
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "project reflections", ids(refs, func(r research.Reflection) string { return r.ID }), []string{"ref_new", "ref_old"})
	})
}
