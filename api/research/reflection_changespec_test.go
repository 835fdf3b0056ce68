package research

import (
	"context"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/models/modelstest"
	models "github.com/gatehouse/gatehouse/models/research"
)

// A change spec whose follow-up takes the name of an existing experiment
// is invalid when uploaded, naming that experiment; dependencies outside
// the corpus are too; a spec that avoids both has no problems.
func TestChangeSpecProblems_FollowUpNamesAndDependencies(t *testing.T) {
	s := newTestService(t)
	s.DB = modelstest.SQLite(t)
	if err := s.DB.Create(&models.Experiment{ID: "exp_old", ProjectID: "prj_c", Name: "already-here", Status: "completed"}).Error; err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	taken := s.changeSpecProblems(ctx, "prj_c", []string{"exp_old"},
		[]byte(`{"summary":"s","claim_changes":[],"follow_up_experiments":[{"name":"already-here","intent":"x","depends_on":["exp_old"]}]}`))
	if len(taken) != 1 || !strings.Contains(taken[0], "exp_old") || !strings.Contains(taken[0], "name") {
		t.Fatalf("a taken follow-up name: %v", taken)
	}
	outside := s.changeSpecProblems(ctx, "prj_c", []string{"exp_old"},
		[]byte(`{"summary":"s","claim_changes":[],"follow_up_experiments":[{"name":"new-one","intent":"x","depends_on":["exp_elsewhere"]}]}`))
	if len(outside) != 1 || !strings.Contains(outside[0], "not a corpus experiment") {
		t.Fatalf("a dependency outside the corpus: %v", outside)
	}
	if ok := s.changeSpecProblems(ctx, "prj_c", []string{"exp_old"},
		[]byte(`{"summary":"s","claim_changes":[],"follow_up_experiments":[{"name":"new-one","intent":"x","depends_on":["exp_old"]}]}`)); len(ok) != 0 {
		t.Fatalf("a valid change spec: %v", ok)
	}
}
