package console

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/api/research"
	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	resmodels "github.com/gatehouse/gatehouse/models/research"
)

// fakeReviewer stands in for research.Service.AnswerHumanReview.
type fakeReviewer struct {
	got  []research.Verdict
	by   []platform.Principal
	fail error
}

func (f *fakeReviewer) AnswerHumanReview(_ context.Context, p platform.Principal, _ string, v research.Verdict) (*research.VerdictAnswer, error) {
	if f.fail != nil {
		return nil, f.fail
	}
	f.got, f.by = append(f.got, v), append(f.by, p)
	return &research.VerdictAnswer{ReviewRequestID: "rr_1", Verdict: v.Verdict, Recorded: true}, nil
}

func TestResearchSource_ListsHumanReviewsWithArtifacts(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	now := time.Now()
	req := func(id, role, status string) resmodels.ReviewRequest {
		return resmodels.ReviewRequest{ID: id, ProjectID: "p1", TargetType: "experiment", TargetID: "rexp_1", Kind: "experiment",
			Role: role, ProducerSessionID: "main", CapabilityHash: id + "-cap", SnapshotToken: "s", SnapshotJSON: "{}",
			Status: status, ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
	}
	for _, r := range []resmodels.ReviewRequest{req("rr_human", "human", resmodels.ReviewRequested),
		req("rr_agent", "experiment_reviewer", resmodels.ReviewRequested), req("rr_done", "human", "submitted")} {
		if err := db.Create(&r).Error; err != nil {
			t.Fatal(err)
		}
	}
	landed := now
	if err := db.Create(&resmodels.Artifact{ID: "art_1", ProjectID: "p1", TargetType: "experiment", TargetID: "rexp_1",
		Role: "plan", Path: "plan.md", Title: "The plan", UploadTokenHash: "h1", BlobKey: "k", SHA256: "abc", Size: 12,
		Valid: true, UploadedAt: &landed, CreatedAt: now}).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&resmodels.Artifact{ID: "art_pending", ProjectID: "p1", TargetType: "experiment", TargetID: "rexp_1",
		Role: "plan", Path: "late.md", UploadTokenHash: "h2", BlobKey: "k2", CreatedAt: now}).Error; err != nil {
		t.Fatal(err)
	}
	src := &researchSource{db: db, reviewer: &fakeReviewer{}}
	got, err := src.PendingReviews(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "rr_human" || got[0].WorkflowID != "research-experiment/rexp_1" {
		t.Fatalf("pending reviews: %+v", got)
	}
	if len(got[0].Artifacts) != 1 || got[0].Artifacts[0].ID != "art_1" || got[0].Artifacts[0].Title != "The plan" {
		t.Fatalf("artifacts (only landed ones): %+v", got[0].Artifacts)
	}
}

func TestResearchSource_VerdictGoesToAnswerHumanReviewAsTheOperator(t *testing.T) {
	t.Parallel()
	rv := &fakeReviewer{}
	src := &researchSource{db: modelstest.SQLite(t), reviewer: rv}
	ctx := context.Background()
	if err := src.SubmitVerdict(ctx, Operator{CredentialID: "cred1", Name: "olga"}, "rr_1",
		Verdict{Verdict: "needs_changes", Synopsis: "add a control", ReturnTo: "planned"}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rv.got[0], research.Verdict{Verdict: "needs_changes", Synopsis: "add a control", ReturnTo: "planned"}) ||
		rv.by[0].Role != platform.RoleOperator || rv.by[0].CredentialID != "cred1" {
		t.Fatalf("answered %+v as %+v", rv.got, rv.by)
	}
	for code, want := range map[string]error{"not_found": ErrNotFound, "conflict": ErrConflict, "expired": ErrConflict,
		"invalid_input": ErrInvalid, "forbidden": ErrInvalid} {
		rv.fail = &research.ToolError{Code: code, Message: "m"}
		if err := src.SubmitVerdict(ctx, Operator{}, "rr_1", Verdict{Verdict: "pass", Synopsis: "x"}); !errors.Is(err, want) {
			t.Errorf("code %s: %v, want %v", code, err, want)
		}
	}
}
