package research

import (
	"context"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/models/platform"
)

// TestMLflowAnswerShapes pins the bytes of mlflow.context and
// mlflow.finalize_run (first and replayed) to what the untyped maps wrote:
// keys sorted, experiment_id only on context, logged_* only on a fresh
// finalize (0 when nothing was logged), replayed only on a replay.
func TestMLflowAnswerShapes(t *testing.T) {
	ctx := context.Background()
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	args := []byte(`{"project_id":"prj_1","experiment_id":"exp_1"}`)
	for _, tc := range []struct {
		name    string
		metrics string
		logged  string
	}{
		{"two metrics", `{"accuracy":0.91,"loss":{"val":0.3}}`, `"logged_metrics":2,"logged_params":3,`},
		{"no metrics", `{}`, `"logged_metrics":0,"logged_params":3,`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mlflowService(t, &mlflowServer{t: t, exps: map[string]string{}}, []byte(tc.metrics))
			uri := s.Config.MLflowTrackingURI
			env := `"env":{"MLFLOW_EXPERIMENT_ID":"17","MLFLOW_RUN_ID":"run-1","MLFLOW_TRACKING_URI":"URI"}`
			for _, step := range []struct {
				tool, want string
			}{
				{"mlflow.context", `{` + env + `,"experiment_id":"exp_1","finished":false,"mlflow_experiment_id":"17","run_id":"run-1","tracking_uri":"URI"}`},
				{"mlflow.finalize_run", `{` + env + `,"finished":true,` + tc.logged + `"mlflow_experiment_id":"17","run_id":"run-1","tracking_uri":"URI"}`},
				{"mlflow.finalize_run", `{` + env + `,"finished":true,"mlflow_experiment_id":"17","replayed":true,"run_id":"run-1","tracking_uri":"URI"}`},
			} {
				out, terr := s.Invoke(ctx, agent, step.tool, args)
				if terr != nil {
					t.Fatalf("%s: %v", step.tool, terr)
				}
				if got := strings.ReplaceAll(marshalJSON(t, out), uri, "URI"); got != step.want {
					t.Errorf("%s:\n got %s\nwant %s", step.tool, got, step.want)
				}
			}
		})
	}
}
