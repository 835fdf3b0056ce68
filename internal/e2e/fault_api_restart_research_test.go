package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/gatehouse/gatehouse/models"
	"github.com/gatehouse/gatehouse/models/modelstest"
	resmodels "github.com/gatehouse/gatehouse/models/research"
	rwf "github.com/gatehouse/gatehouse/workflows/research"
)

// TestFault_APIRestartedMidResearchExperimentResumes runs the api and the
// worker as child processes on PostgreSQL. The agent writes the plan, then
// sends submit_design_for_review and the api is SIGKILLed while that call
// is in flight, and restarted on the same address. The agent reconnects,
// resumes through workflow.status_and_next and finishes the experiment:
// the workflow applied each of the five transitions exactly once, and
// Postgres holds one uploaded artifact per role and one submitted review
// per gate.
func TestFault_APIRestartedMidResearchExperimentResumes(t *testing.T) {
	t.Parallel()
	dbURL := modelstest.SchemaURL(t)
	if dbURL == "" {
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	sp := startSplitStack(t, dbURL)
	s, via, base, api := sp.stack, sp.via, sp.base, sp.api

	op := connectResearch(t, via, via.OperatorToken)
	projectID := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("api-restart")}), "project", "id"))
	agent := connectResearch(t, via, via.APIKey)
	expID := str(agent.must("experiment.create", map[string]any{"project_id": projectID, "name": "restart-1"})["experiment_id"])
	status := map[string]any{"project_id": projectID, "experiment_id": expID}
	for step := 0; ; step++ {
		w, _ := agent.must("workflow.status_and_next", status)["workflow"].(map[string]any)
		if next := str(w["next_action"]); next == "submit_design_for_review" {
			break
		} else if guide, ok := w["artifact_guidance"].(map[string]any); !ok || step > 5 {
			t.Fatalf("before the design review the agent was told %q: %v", next, w)
		} else {
			uploadGuided(t, agent, projectID, expID, guide)
		}
	}

	// Kill the api while the transition is in flight: it may or may not
	// have been applied, and the agent does not know which.
	sent := make(chan struct{})
	go func() {
		close(sent)
		_, _ = post(base+"/v1/research/tools/experiment.transition", via.APIKey, map[string]any{"project_id": projectID,
			"experiment_id": expID, "transition": "submit_design_for_review", "evidence": map[string]any{}}, 30*time.Second)
	}()
	<-sent
	time.Sleep(30 * time.Millisecond)
	api.Kill()
	sp.restartAPI()

	agent = connectResearch(t, via, via.APIKey) // the MCP session died with the api
	seen := driveExperiment(t, agent, projectID, expID, func(string, int) verdict { return verdict{"pass", ""} })
	t.Logf("after the restart the agent was told: %v", seen)
	if seen[0] != "submit_design_for_review" && seen[0] != "launch_design_reviewer" {
		t.Fatalf("status_and_next after the restart named %q", seen[0])
	}
	if st := agent.must("workflow.status_and_next", status); dig(st, "workflow", "status") != "complete" {
		t.Fatalf("final: %v", st["workflow"])
	}

	if got := acceptedUpdates(t, s, "research-experiment/"+expID, rwf.TransitionUpdate); got != 5 {
		t.Fatalf("the workflow accepted %d transition updates, want 5 (one per agent transition)", got)
	}
	db, err := models.Open(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	var roles []struct {
		Role string
		N    int64
	}
	if err := db.Model(&resmodels.Artifact{}).Select("role, count(*) AS n").
		Where("target_id = ? AND uploaded_at IS NOT NULL", expID).Group("role").Scan(&roles).Error; err != nil {
		t.Fatal(err)
	}
	if len(roles) == 0 {
		t.Fatal("no uploaded artifacts stored")
	}
	for _, r := range roles {
		if r.N != 1 {
			t.Fatalf("artifact role %s uploaded %d times: %v", r.Role, r.N, roles)
		}
	}
	var reviews int64
	if err := db.Model(&resmodels.ReviewRequest{}).Where("target_id = ? AND status = ?", expID, resmodels.ReviewSubmitted).
		Count(&reviews).Error; err != nil || reviews != 2 {
		t.Fatalf("submitted reviews: %d (%v), want 2", reviews, err)
	}
}

// uploadGuided fills the artifact template status_and_next handed out and
// uploads it the way the returned run command would.
func uploadGuided(t *testing.T, agent *researchAgent, projectID, expID string, guide map[string]any) {
	t.Helper()
	filled := strings.ReplaceAll(str(guide["template"]), "TODO:", "Filled in by the agent:")
	sub := agent.must("artifact.submit", map[string]any{"project_id": projectID, "target_type": "experiment",
		"target_id": expID, "role": guide["role"], "path": guide["path"]})
	if code, body := uploadAs(t, sub, []byte(filled)); code != http.StatusOK || body["valid"] != true {
		t.Fatalf("upload of %s: %d %v", guide["role"], code, body)
	}
}

// acceptedUpdates counts the updates named name that the workflow's
// history accepted (its current run).
func acceptedUpdates(t *testing.T, s *Stack, workflowID, name string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	it := s.Client(t).GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	n := 0
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil && a.GetAcceptedRequest().GetInput().GetName() == name {
			n++
		}
	}
	return n
}
