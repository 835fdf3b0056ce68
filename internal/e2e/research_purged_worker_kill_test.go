package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestResearchPurged_KilledWorkerCostsARunningExperimentsReadsADelayNotAnError
// runs two worker processes, brings an experiment to its design review and
// SIGKILLs them one after the other (a replacement joins each time), so
// the worker the workflow is sticky to dies at some point: every
// workflow.status_and_next right after a kill still answers the gate,
// because a query Temporal could not hand to a live worker is asked again.
func TestResearchPurged_KilledWorkerCostsARunningExperimentsReadsADelayNotAnError(t *testing.T) {
	t.Parallel()
	s, dbURL := workerlessStack(t)
	first := StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	second := StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	op := connectResearch(t, s, s.OperatorToken)
	pid := researchProject(t, op, "killed-worker")
	a := connectResearch(t, s, s.APIKey)
	exp := str(a.must("experiment.create", map[string]any{"project_id": pid, "name": "survives-a-kill"})["experiment_id"])
	args := map[string]any{"project_id": pid, "experiment_id": exp}
	guide, _ := dig(a.must("workflow.status_and_next", args), "workflow", "artifact_guidance").(map[string]any)
	sub := a.must("artifact.submit", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": exp,
		"role": guide["role"], "path": guide["path"]})
	if code, body := uploadAs(t, sub, []byte(strings.ReplaceAll(str(guide["template"]), "TODO:", "Filled in:"))); code != http.StatusOK {
		t.Fatalf("plan upload: %d %v", code, body)
	}
	a.must("experiment.transition", map[string]any{"project_id": pid, "experiment_id": exp, "transition": "submit_design_for_review"})

	read := func(after string) {
		t.Helper()
		start := time.Now()
		r := a.call("workflow.status_and_next", args)
		if r.IsError || dig(r.Body, "workflow", "status") != "design_review" {
			t.Fatalf("status_and_next %s: %s", after, truncate([]byte(r.Raw)))
		}
		t.Logf("status_and_next %s answered in %s", after, time.Since(start).Round(time.Millisecond))
	}
	for i, w := range []*Process{first, second} {
		w.Kill()
		read([]string{"the first kill", "the second kill"}[i])
		// The workflow task the read may leave runs on a live worker.
		StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	}
	read("both original workers died")
}
