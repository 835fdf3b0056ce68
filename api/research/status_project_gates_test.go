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
		add(3, "running")
		if err := db.Model(&models.Experiment{}).Where("id = ?", "exp_g3").Update("next_action", "write_and_submit_results_report").Error; err != nil {
			t.Fatal(err)
		}
		if g, _ := gate(); g != "live_experiments" {
			t.Fatalf("one live: %s", g)
		}
		w := invokeOK(t, s, "workflow.status_and_next", map[string]any{"project_id": "prj_g"})["workflow"].(map[string]any)
		if w["next_action"] != "write_and_submit_results_report" {
			t.Fatalf("live_experiments next_action %v, want the live experiment's own", w["next_action"])
		}
		for i := 4; i <= 6; i++ {
			add(i, "abandoned")
		}
		if g, allowed := gate(); g != "reflection_required" || len(allowed) != 2 {
			t.Fatalf("five finished: %s %v", g, allowed)
		}
	})
}
