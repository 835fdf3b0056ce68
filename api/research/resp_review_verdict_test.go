package research

import (
	"testing"

	models "github.com/gatehouse/gatehouse/models/research"
)

// TestVerdictAnswerShape pins review.submit's answer (and the operator
// endpoint's) to the bytes of the untyped map it was: the four keys a
// verdict always has, plus where it moved the target, keys sorted.
func TestVerdictAnswerShape(t *testing.T) {
	base := `"recorded":true,"review_request_id":"rr_1","review_session_id":"rs_1",`
	for _, tc := range []struct {
		name, target, kind, verdict, returnTo, want string
	}{
		{"stays", targetExperiment, kindDesign, "pass", "", `{` + base + `"verdict":"pass"}`},
		{"design rejection", targetExperiment, kindDesign, "needs_changes", "",
			`{"new_attempt":false,` + base + `"target_status":"planned","verdict":"needs_changes"}`},
		{"experiment rejection to planned", targetExperiment, kindExperiment, "fail", "planned",
			`{"new_attempt":true,` + base + `"target_status":"planned","verdict":"fail"}`},
		{"reflection rejection", targetReflection, kindReflection, "needs_changes", "reflecting",
			`{"new_attempt":true,"new_proposal_revision":false,` + base + `"target_status":"reflecting","verdict":"needs_changes"}`},
		{"consolidation rejection", targetReflection, kindConsolidation, "fail", "",
			`{"new_attempt":false,"new_proposal_revision":true,` + base + `"target_status":"consolidating","verdict":"fail"}`},
		{"reflection pass", targetReflection, kindReflection, "pass", "", `{` + base + `"verdict":"pass"}`},
	} {
		target, err := reviewTargetOf(tc.target)
		if err != nil {
			t.Fatal(err)
		}
		moved, err := target.moved(tc.kind, Verdict{Verdict: tc.verdict, ReturnTo: tc.returnTo})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ans := verdictAnswer(models.ReviewSession{ID: "rs_1"}, models.ReviewRequest{ID: "rr_1"}, Verdict{Verdict: tc.verdict}, moved)
		if got := marshalJSON(t, ans); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
