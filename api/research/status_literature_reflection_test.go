package research

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/mocks"

	"github.com/gatehouse/gatehouse/models/modelstest"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// queriedState is a workflow query's answer, as the Temporal client hands
// it back.
type queriedState struct{ v any }

func (q queriedState) HasValue() bool { return q.v != nil }

func (q queriedState) Get(ptr any) error {
	raw, err := json.Marshal(q.v)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, ptr)
}

func TestStatusAndNext_OpenWaveKeepsTheProjectContext(t *testing.T) {
	s := newTestService(t)
	s.DB = modelstest.SQLite(t)
	tc := &mocks.Client{}
	s.Temporal = tc
	tc.On("QueryWorkflow", mock.Anything, wf.ReflectionWorkflowID("rfl_open"), "", wf.StateQuery).
		Return(queriedState{wf.ReflectionState{ProjectID: "prj_w", ReflectionID: "rfl_open", Status: rg.Reflecting}}, nil)
	open := "prj_w"
	for _, row := range []any{
		&models.Project{ID: "prj_w", Name: "wave", CreatedBy: "op"},
		&models.Claim{ID: "cl_w", ProjectID: "prj_w", Statement: "s", Confidence: "low", Status: "open"},
		&models.Experiment{ID: "exp_w", ProjectID: "prj_w", Name: "done-one", Status: "complete"},
		&models.LitSection{ID: "sec_w", ProjectID: "prj_w", Text: "## Background\nx"},
		&models.Reflection{ID: "rfl_open", ProjectID: "prj_w", OpenProject: &open, Status: string(rg.Reflecting), LensesJSON: "[]", CorpusJSON: "[]"},
	} {
		if err := s.DB.Create(row).Error; err != nil {
			t.Fatal(err)
		}
	}
	out := invokeOK(t, s, "workflow.status_and_next", map[string]any{"project_id": "prj_w"})
	if w, _ := out["workflow"].(map[string]any); w["reflection_id"] != "rfl_open" || out["reflection"] == nil {
		t.Fatalf("not the open wave's status: %v", out)
	}
	c, _ := out["context"].(map[string]any)
	for _, k := range []string{"project", "latest_reflection", "literature_summary", "claims", "experiments"} {
		if _, ok := c[k]; !ok {
			t.Errorf("context lacks %s: %v", k, c)
		}
	}
	if claims, _ := c["claims"].([]any); len(claims) != 1 {
		t.Errorf("claims: %v", c["claims"])
	}
	if exps, _ := c["experiments"].([]any); len(exps) != 1 || exps[0].(map[string]any)["experiment_id"] != "exp_w" {
		t.Errorf("experiments: %v", c["experiments"])
	}
	if lit, _ := c["literature_summary"].(map[string]any); lit["section_count"] != float64(1) {
		t.Errorf("literature_summary: %v", c["literature_summary"])
	}
	tc.AssertExpectations(t)
}
