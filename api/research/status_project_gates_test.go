package research

import (
	"fmt"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	models "github.com/gatehouse/gatehouse/models/research"
)

// The project-scope gates are the reference's four: project_setup until
// work has finished, reflection_suggested once two experiments finished
// with none live, live_experiments while one runs, and
// reflection_required from five finished experiments on.
func TestStatusAndNext_ProjectGatesFollowFinishedAndLiveExperiments(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s := newTestService(t)
		s.DB = db
		if err := db.Create(&models.Project{ID: "prj_g", Name: "gates", CreatedBy: "op"}).Error; err != nil {
			t.Fatal(err)
		}
		gate := func() (string, []any) {
			w := invokeOK(t, s, "workflow.status_and_next", map[string]any{"project_id": "prj_g"})["workflow"].(map[string]any)
			allowed, _ := w["allowed_actions"].([]any)
			return w["current_gate"].(string), allowed
		}
		add := func(i int, status string) {
			if err := db.Create(&models.Experiment{ID: fmt.Sprintf("exp_g%d", i), ProjectID: "prj_g", Name: fmt.Sprintf("exp-%d", i), Status: status}).Error; err != nil {
				t.Fatal(err)
			}
		}
		if g, _ := gate(); g != "project_setup" {
			t.Fatalf("empty project: %s", g)
		}
		add(1, "complete")
		if g, _ := gate(); g != "project_setup" {
			t.Fatalf("one finished experiment: %s", g)
		}
		add(2, "failed")
		g, allowed := gate()
		if g != "reflection_suggested" || len(allowed) != 4 || allowed[0] != "reflection.create" {
			t.Fatalf("two finished, none live: %s %v", g, allowed)
		}
		if w := invokeOK(t, s, "workflow.status_and_next", map[string]any{"project_id": "prj_g"})["workflow"].(map[string]any); w["next_action"] != "consider_project_reflection" {
			t.Fatalf("reflection_suggested next_action %v", w["next_action"])
		}
		add(3, "running")
		if g, _ := gate(); g != "live_experiments" {
			t.Fatalf("one live: %s", g)
		}
		w := invokeOK(t, s, "workflow.status_and_next", map[string]any{"project_id": "prj_g"})["workflow"].(map[string]any)
		if w["next_action"] != "tend_live_work" {
			t.Fatalf("live_experiments next_action %v, want the reference's tend_live_work", w["next_action"])
		}
		for i := 4; i <= 6; i++ {
			add(i, "abandoned")
		}
		if g, allowed := gate(); g != "reflection_required" || len(allowed) != 3 {
			t.Fatalf("five finished: %s %v", g, allowed)
		}
		w = invokeOK(t, s, "workflow.status_and_next", map[string]any{"project_id": "prj_g"})["workflow"].(map[string]any)
		blocked, _ := w["blocked_actions"].([]any)
		if w["next_action"] != "start_project_reflection_before_next_experiment" || len(blocked) != 1 || blocked[0].(map[string]any)["action"] != "experiment.create" {
			t.Fatalf("reflection_required: next %v, blocked %v (no wave exists yet: nothing to fan out)", w["next_action"], blocked)
		}
	})
}
