package research

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/mocks"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// statusWorkflow is the workflow block of one experiment's
// status_and_next: allowed_actions and review_gate.
type statusWorkflow struct {
	Allowed    []string       `json:"allowed_actions"`
	ReviewGate map[string]any `json:"review_gate"`
}

// statusAllowed answers allowed_actions of one experiment at st, for p,
// in a deployment with features f.
func statusAllowed(t *testing.T, f config.Features, p platform.Principal, st wf.ExperimentState) []string {
	t.Helper()
	return statusOfExperiment(t, f, p, st).Allowed
}

// statusOfExperiment answers the workflow block of one experiment at st.
func statusOfExperiment(t *testing.T, f config.Features, p platform.Principal, st wf.ExperimentState) statusWorkflow {
	t.Helper()
	s := newTestService(t)
	cat, err := NewCatalogue(f)
	if err != nil {
		t.Fatal(err)
	}
	s.Cat, s.DB = cat, modelstest.SQLite(t)
	tc := &mocks.Client{}
	s.Temporal = tc
	for _, row := range []any{&models.Project{ID: "prj_a", Name: "allowed", CreatedBy: "op"},
		&models.Experiment{ID: "exp_a", ProjectID: "prj_a", Name: "allowed", Status: string(st.Status)}} {
		if err := s.DB.Create(row).Error; err != nil {
			t.Fatal(err)
		}
	}
	st.ProjectID, st.ExperimentID = "prj_a", "exp_a"
	tc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_a"), "", wf.StateQuery).Return(queriedState{st}, nil)
	out, terr := s.Invoke(context.Background(), p, "workflow.status_and_next", json.RawMessage(`{"project_id":"prj_a","experiment_id":"exp_a"}`))
	if terr != nil {
		t.Fatal(terr)
	}
	raw, _ := json.Marshal(out)
	var env struct {
		Workflow statusWorkflow `json:"workflow"`
	}
	_ = json.Unmarshal(raw, &env)
	return env.Workflow
}

// TestStatusAndNext_ReviewGateStatusesAreTheContracts: a pass on a
// snapshot the target has left is attested_blocked; an expired request
// is none with a hint to request again.
func TestStatusAndNext_ReviewGateStatusesAreTheContracts(t *testing.T) {
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	f := config.Features{Storage: true, Sandboxes: true}
	for _, c := range []struct {
		review     wf.ReviewState
		status     string
		hasRequest bool
	}{
		{wf.ReviewState{Status: wf.ReviewStatusPassed, RequestID: "rr_p", SnapshotToken: "an-earlier-snapshot"}, "attested_blocked", true},
		{wf.ReviewState{Status: wf.ReviewStatusNone, ExpiredRequestID: "rr_x"}, "none", false},
		{wf.ReviewState{Status: wf.ReviewStatusRequested, RequestID: "rr_r"}, "requested", true},
		{wf.ReviewState{Status: wf.ReviewStatusRequested, RequestID: "rr_old", SnapshotToken: "a-snapshot-the-target-left"}, "attested_blocked", true},
		{wf.ReviewState{Status: wf.ReviewStatusStarted, RequestID: "rr_s"}, "started", true},
	} {
		g := statusOfExperiment(t, f, agent, wf.ExperimentState{Status: gates.DesignReview, Artifacts: map[string]wf.ArtifactRef{},
			Reviews: map[string]wf.ReviewState{"design": c.review}}).ReviewGate
		if g["status"] != c.status || (g["request_id"] != nil) != c.hasRequest {
			t.Errorf("%+v: review_gate %v, want status %s", c.review, g, c.status)
		}
		if (c.status == "attested_blocked" || c.review.ExpiredRequestID != "") && g["hint"] == nil {
			t.Errorf("%+v: no hint to request again: %v", c.review, g)
		}
	}
}

// TestStatusAndNext_AllowedActionsAreWhatThisCallerMayCallNow: no hidden
// tool for an agent key, no tool of a family turned off, and the allowed
// transitions among them, as the contract's experiment.transition says.
func TestStatusAndNext_AllowedActionsAreWhatThisCallerMayCallNow(t *testing.T) {
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	review := wf.ExperimentState{Status: gates.DesignReview, Artifacts: map[string]wf.ArtifactRef{},
		Reviews: map[string]wf.ReviewState{"design": {Status: wf.ReviewStatusRequested, RequestID: "rr_1"}}}
	got := statusAllowed(t, config.Features{Storage: true, Sandboxes: true}, agent, review)
	if slices.Contains(got, "review.status") || !slices.Contains(got, "review.request") ||
		!slices.Contains(got, gates.TAbandon) || !slices.Contains(got, gates.TMarkFailed) {
		t.Fatalf("design review, agent key: %v", got)
	}
	ready := wf.ExperimentState{Status: gates.ReadyToRun, Artifacts: map[string]wf.ArtifactRef{}, Reviews: map[string]wf.ReviewState{}}
	got = statusAllowed(t, config.Features{Storage: true, Sandboxes: false}, agent, ready)
	for _, a := range got {
		if len(a) > 8 && a[:8] == "sandbox." {
			t.Fatalf("sandboxes off, yet allowed_actions lists %s: %v", a, got)
		}
	}
	if !slices.Contains(got, gates.TStartRunning) || !slices.Contains(got, "experiment.transition") {
		t.Fatalf("ready to run: %v", got)
	}
	if got := statusAllowed(t, config.Features{Storage: true, Sandboxes: true}, agent, ready); !slices.Contains(got, "sandbox.request") {
		t.Fatalf("sandboxes on, ready to run: %v", got)
	}
}

// TestStatusAndNext_ExperimentCreateBlockedAtTheProjectLimit: with the
// project's maximum of open experiments, experiment.create would be
// refused (project_limit), so the project status lists it among
// blocked_actions with that reason, not among allowed_actions; one
// below the limit it is allowed.
func TestStatusAndNext_ExperimentCreateBlockedAtTheProjectLimit(t *testing.T) {
	s := newTestService(t)
	s.DB = modelstest.SQLite(t)
	if err := s.DB.Create(&models.Project{ID: "prj_l", Name: "limit", CreatedBy: "op"}).Error; err != nil {
		t.Fatal(err)
	}
	status := func() (string, []any, []any) {
		w := invokeOK(t, s, "workflow.status_and_next", map[string]any{"project_id": "prj_l"})["workflow"].(map[string]any)
		allowed, _ := w["allowed_actions"].([]any)
		blocked, _ := w["blocked_actions"].([]any)
		return w["current_gate"].(string), allowed, blocked
	}
	blockedFor := func(blocked []any, action string) (string, bool) {
		for _, b := range blocked {
			if m, ok := b.(map[string]any); ok && m["action"] == action {
				r, _ := m["reason"].(string)
				return r, true
			}
		}
		return "", false
	}
	for i := 0; i < maxOpenExperiments-1; i++ {
		if err := s.DB.Create(&models.Experiment{ID: fmt.Sprintf("exp_l%d", i), ProjectID: "prj_l", Name: fmt.Sprintf("open-%d", i), Status: "running"}).Error; err != nil {
			t.Fatal(err)
		}
	}
	gate, allowed, blocked := status()
	if _, ok := blockedFor(blocked, "experiment.create"); gate != "live_experiments" || !slices.Contains(allowed, any("experiment.create")) || ok {
		t.Fatalf("%d open (below the limit): gate %s, allowed %v, blocked %v", maxOpenExperiments-1, gate, allowed, blocked)
	}
	if err := s.DB.Create(&models.Experiment{ID: "exp_last", ProjectID: "prj_l", Name: "open-last", Status: "planned"}).Error; err != nil {
		t.Fatal(err)
	}
	gate, allowed, blocked = status()
	reason, ok := blockedFor(blocked, "experiment.create")
	if gate != "live_experiments" || slices.Contains(allowed, any("experiment.create")) || !ok || reason != ReasonProjectLimit {
		t.Fatalf("%d open (at the limit): gate %s, allowed %v, blocked %v; want experiment.create blocked for %s",
			maxOpenExperiments, gate, allowed, blocked, ReasonProjectLimit)
	}
	if !slices.Contains(allowed, any("claim.create")) || !slices.Contains(allowed, any("workflow.status_and_next")) {
		t.Fatalf("at the limit the rest stays allowed: %v", allowed)
	}
	// What status says matches what the call does.
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	_, terr := s.Invoke(context.Background(), agent, "experiment.create", json.RawMessage(`{"project_id":"prj_l","name":"one-too-many"}`))
	if terr == nil || terr.Reason != ReasonProjectLimit {
		t.Fatalf("experiment.create at the limit: %+v, want %s", terr, ReasonProjectLimit)
	}
}
