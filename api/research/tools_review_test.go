package research

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

func experimentAt(status gates.Status) wf.ExperimentState {
	return wf.ExperimentState{ProjectID: "prj_1", ExperimentID: "exp_1", Name: "lr-sweep", Status: status, Attempt: 2,
		Artifacts: map[string]wf.ArtifactRef{
			"plan":   {ArtifactID: "art_new", Role: "plan", Attempt: 2, Valid: true},
			"report": {ArtifactID: "art_old", Role: "report", Attempt: 1, Valid: true},
		}}
}

func TestReviewTargetDue(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target reviewTarget
		want   string
	}{
		{"design review", experimentTarget{st: experimentAt(gates.DesignReview)}, kindDesign},
		{"experiment review", experimentTarget{st: experimentAt(gates.ExperimentReview)}, kindExperiment},
		{"running", experimentTarget{st: experimentAt(gates.Running)}, ""},
		{"reflecting", reflectionTarget{st: wf.ReflectionState{ReflectionID: "ref_1", Status: rg.Reflecting}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, err := tc.target.due()
			if tc.want != "" {
				if err != nil || kind != tc.want {
					t.Fatalf("due = %q, %v; want %q", kind, err, tc.want)
				}
				return
			}
			var te *ToolError
			if !errors.As(err, &te) || te.Code != CodeGateBlocked || te.Pointer != "/target_id" {
				t.Fatalf("due = %q, %v; want gate_blocked at /target_id", kind, err)
			}
		})
	}
}

func TestReviewTargetMoved(t *testing.T) {
	for _, tc := range []struct {
		name     string
		target   string
		kind     string
		verdict  string
		returnTo string
		want     *verdictMove
		badField string
	}{
		{"design pass stays", targetExperiment, kindDesign, "pass", "", nil, ""},
		{"design rejection plans again", targetExperiment, kindDesign, "needs_changes", "", &verdictMove{TargetStatus: string(gates.Planned), NewAttempt: false}, ""},
		{"experiment rejection to planned is a new attempt", targetExperiment, kindExperiment, "fail", "planned",
			&verdictMove{TargetStatus: string(gates.Planned), NewAttempt: true}, ""},
		{"experiment rejection to running keeps the attempt", targetExperiment, kindExperiment, "needs_changes", "running",
			&verdictMove{TargetStatus: string(gates.Running), NewAttempt: false}, ""},
		{"experiment rejection must say where", targetExperiment, kindExperiment, "needs_changes", "", nil, "/return_to"},
		{"pass takes no return_to", targetExperiment, kindDesign, "pass", "planned", nil, "/return_to"},
		{"unknown verdict", targetExperiment, kindDesign, "maybe", "", nil, "/verdict"},
		{"reflection rejection to reflecting", targetReflection, kindReflection, "needs_changes", "reflecting",
			&verdictMove{TargetStatus: string(rg.Reflecting), NewAttempt: true, NewProposalRevision: movedRevision(false)}, ""},
		{"consolidation rejection is a new revision", targetReflection, kindConsolidation, "fail", "",
			&verdictMove{TargetStatus: string(rg.Consolidating), NewAttempt: false, NewProposalRevision: movedRevision(true)}, ""},
		{"consolidation cannot return to reflecting", targetReflection, kindConsolidation, "fail", "reflecting", nil, "/return_to"},
		{"reflection pass stays", targetReflection, kindReflection, "pass", "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, err := reviewTargetOf(tc.target)
			if err != nil {
				t.Fatal(err)
			}
			got, err := target.moved(tc.kind, Verdict{Verdict: tc.verdict, ReturnTo: tc.returnTo})
			if tc.badField != "" {
				var te *ToolError
				if !errors.As(err, &te) || te.Code != CodeInvalidInput || te.Pointer != tc.badField {
					t.Fatalf("moved = %v, %v; want invalid_input at %s", got, err, tc.badField)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("moved = %v, %v; want %v", got, err, tc.want)
			}
			// The verdict's answer carries exactly these fields besides
			// the four it always has.
			ans := verdictAnswer(models.ReviewSession{ID: "rs_1"}, models.ReviewRequest{ID: "rr_1"}, Verdict{Verdict: tc.verdict}, got)
			if !ans.Recorded || ans.ReviewSessionID != "rs_1" || ans.ReviewRequestID != "rr_1" || ans.Verdict != tc.verdict {
				t.Fatalf("verdict answer %+v", ans)
			}
			var move *verdictMove
			if ans.TargetStatus != nil || ans.NewAttempt != nil || ans.NewProposalRevision != nil {
				if ans.TargetStatus == nil || ans.NewAttempt == nil {
					t.Fatalf("verdict answer %+v moves without a status or attempt", ans)
				}
				move = &verdictMove{TargetStatus: *ans.TargetStatus, NewAttempt: *ans.NewAttempt, NewProposalRevision: ans.NewProposalRevision}
			}
			if !reflect.DeepEqual(move, tc.want) {
				t.Fatalf("verdict answer moves %+v; want %+v", move, tc.want)
			}
		})
	}
}

// movedRevision is a verdictMove's NewProposalRevision.
func movedRevision(b bool) *bool { return &b }

func TestReviewTargetSnapshot(t *testing.T) {
	exp := experimentTarget{st: experimentAt(gates.DesignReview), name: "lr-sweep"}
	snap := exp.snapshot()
	if len(snap.Artifacts) != 1 || snap.Artifacts[0].ArtifactID != "art_new" {
		t.Fatalf("the snapshot shows only the current attempt's artifacts: %+v", snap.Artifacts)
	}
	if snap.SnapshotToken != exp.token() || exp.token() == "" || snap.TargetType != "experiment" || snap.TargetID != "exp_1" {
		t.Fatalf("experiment snapshot %+v", snap)
	}
	ref := reflectionTarget{st: wf.ReflectionState{ReflectionID: "ref_1", Status: rg.Consolidating, Attempt: 1, ProposalRevision: 3,
		Proposal: &wf.ProposalRef{ProposalID: "cp_1", Revision: 3}}}
	rs := ref.snapshot()
	if rs.ProposalID == nil || *rs.ProposalID != "cp_1" || rs.ProposalRevision == nil || *rs.ProposalRevision != 3 ||
		rs.TargetType != "reflection" || rs.SnapshotToken != ref.token() {
		t.Fatalf("reflection snapshot %+v", rs)
	}
	if (reflectionTarget{st: wf.ReflectionState{ReflectionID: "ref_2"}}).snapshot().ProposalID != nil {
		t.Fatal("a wave without a proposal names none")
	}
	if p := ref.prompt("consolidation_reviewer", "rr_1", kindConsolidation); !strings.Contains(p, "consolidation.get") || !strings.Contains(p, "ref_1") {
		t.Fatalf("consolidation prompt %q", p)
	}
	if p := ref.prompt("reflection_reviewer", "rr_1", kindReflection); !strings.Contains(p, "reflection.get include_content=true") {
		t.Fatalf("reflection prompt %q", p)
	}
	if p := exp.prompt("design_reviewer", "rr_1", kindDesign); !strings.Contains(p, "experiment lr-sweep") || !strings.Contains(p, "rr_1") {
		t.Fatalf("experiment prompt %q", p)
	}
}

// TestReviewRequestAnswerJSON pins review.request's answer to the JSON the
// handler wrote as an untyped map before it became a struct.
func TestReviewRequestAnswerJSON(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := &Service{Now: func() time.Time { return now }}
	c := &Call{Principal: platform.Principal{CredentialID: "cred_producer", Role: platform.RoleAgent}}
	exp := experimentTarget{st: experimentAt(gates.DesignReview), name: "lr-sweep"}
	a, err := s.newReviewRequest(c, models.Project{ID: "prj_1"}, exp, reviewArgs{Role: "design_reviewer"})
	if err != nil {
		t.Fatal(err)
	}
	r := a.request
	if r.Kind != kindDesign || r.TargetType != "experiment" || r.TargetID != "exp_1" || r.ProducerSessionID != "main" ||
		r.CapabilityHash != platform.HashSecret(a.Capability) || r.SnapshotToken != exp.token() || !r.ExpiresAt.Equal(now.Add(reviewTTL)) {
		t.Fatalf("request row %+v", r)
	}
	snap := exp.snapshot()
	before := map[string]any{"review_request_id": r.ID, "reviewer_capability": a.Capability, "role": r.Role,
		"target_snapshot_id": r.SnapshotToken, "target_snapshot": snap, "expires_at": r.ExpiresAt,
		"reviewer_handoff": map[string]any{"role": r.Role, "skill": "design-review", "target_type": "experiment", "target_id": "exp_1",
			"read_only": true, "start_tool": "review.start", "submit_tool": "review.submit",
			"spawn_prompt": "You are the " + r.Role + " for experiment lr-sweep. Call review.start with review_request_id " + r.ID +
				", the reviewer capability and your own caller_session_id; read the artifacts with artifact.find include_content=true; then review.submit a verdict."}}
	if got, want := canonicalJSON(t, a), canonicalJSON(t, before); got != want {
		t.Fatalf("answer JSON changed:\n got %s\nwant %s", got, want)
	}
	// A role the kind does not take is refused before anything is built.
	if _, err := s.newReviewRequest(c, models.Project{ID: "prj_1"}, exp, reviewArgs{Role: "experiment_reviewer"}); err == nil {
		t.Fatal("an experiment_reviewer was accepted for a design review")
	}
}

// canonicalJSON marshals v with object keys sorted (through a generic
// decode), so a struct and a map with the same fields compare equal.
func canonicalJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(generic)
	return string(out)
}
