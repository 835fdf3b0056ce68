package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
)

// purgedRead is one read an agent or the operator makes of finished work.
type purgedRead struct {
	name string
	read func() string
}

// TestResearchPurged_FinishedWorkReadsTheSameAfterTemporalPurgedItsWorkflows
// finishes an experiment and a reflection wave over it, records every read
// of them (agent tools over MCP, the operator's internal tools and the
// console's experiments page), deletes their workflows from Temporal as the
// namespace's retention would, and reads everything again: the answers are
// the same, and none is "unavailable". Writes against the finished work
// answer gate_blocked, before and after.
func TestResearchPurged_FinishedWorkReadsTheSameAfterTemporalPurgedItsWorkflows(t *testing.T) {
	t.Parallel()
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	pid := researchProject(t, op, "purged")
	a := connectResearch(t, s, mintProjectKey(t, s, "purged-agent", pid))

	exp := str(a.must("experiment.create", map[string]any{"project_id": pid, "name": "purged-run", "intent": "outlive the workflow"})["experiment_id"])
	// An upload issued while the experiment runs and sent after it closed.
	late := a.must("artifact.submit", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": exp,
		"role": "plan", "path": "experiments/purged-run/late.md"})
	driveExperiment(t, a, pid, exp, func(string, int) verdict { return verdict{"pass", ""} })
	// The wave's corpus is the experiments the mirror shows finished.
	waitFor(t, 15*time.Second, func() bool {
		l := op.must("experiment.list", map[string]any{"project_id": pid})["experiments"].([]any)
		return len(l) == 1 && dig(l[0], "status") == "complete"
	})

	lenses := []any{
		map[string]any{"id": "baselines", "title": "Baselines", "charter": "Were the baselines fair?", "why_distinct": "Only about comparisons"},
		map[string]any{"id": "cost", "title": "Cost", "charter": "What did each result cost?", "why_distinct": "Only about compute"},
	}
	rid := str(a.must("reflection.create", map[string]any{"project_id": pid, "title": "purged wave", "lenses": lenses})["reflection_id"])
	d := &reflectionDriver{t: t, a: a, pid: pid, rid: rid, count: map[string]int{}, conflicted: true,
		spec:    `{"summary":"nothing to change","claim_changes":[],"follow_up_experiments":[]}`,
		reviews: func(string, int) verdict { return verdict{"pass", ""} }}
	d.run()
	waitFor(t, 15*time.Second, func() bool {
		l := op.must("reflection.list", map[string]any{"project_id": pid})["reflections"].([]any)
		return len(l) == 1 && dig(l[0], "status") == "published"
	})
	expWF, reflWF := "research-experiment/"+exp, "research-reflection/"+rid
	waitClosed(t, s, expWF, reflWF)
	recordResearchHistory(t, s, expWF, "complete_final_state_stored")
	recordResearchHistory(t, s, reflWF, "reflection-published-final-state-stored")

	console := consoleHTTP(t, s)
	expArgs := map[string]any{"project_id": pid, "experiment_id": exp}
	reflArgs := map[string]any{"project_id": pid, "reflection_id": rid}
	tool := func(who *researchAgent, name string, args map[string]any) func() string {
		return func() string { return who.call(name, args).Raw }
	}
	reads := []purgedRead{
		{"workflow.status_and_next experiment", tool(a, "workflow.status_and_next", expArgs)},
		{"workflow.status_and_next project", tool(a, "workflow.status_and_next", map[string]any{"project_id": pid})},
		{"experiment.get_state", tool(op, "experiment.get_state", expArgs)},
		{"experiment.list", tool(op, "experiment.list", map[string]any{"project_id": pid})},
		{"experiment.exhibit", tool(a, "experiment.exhibit", expArgs)},
		{"artifact.find experiment", tool(a, "artifact.find", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": exp, "include_content": true})},
		{"review.status", tool(op, "review.status", map[string]any{"project_id": pid})},
		{"reflection.get", tool(a, "reflection.get", map[string]any{"project_id": pid, "reflection_id": rid, "include_content": true})},
		{"consolidation.get", tool(a, "consolidation.get", reflArgs)},
		{"reflection.list", tool(op, "reflection.list", map[string]any{"project_id": pid})},
		{"artifact.find reflection", tool(a, "artifact.find", map[string]any{"project_id": pid, "target_type": "reflection", "target_id": rid})},
		// From here (firstWrite): writes against finished work, refused
		// with the same typed answer.
		{"artifact.submit experiment", tool(a, "artifact.submit", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": exp,
			"role": "report", "path": "experiments/purged-run/again.md"})},
		{"review.request experiment", tool(a, "review.request", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": exp,
			"role": "experiment_reviewer"})},
		{"experiment.transition", tool(a, "experiment.transition", map[string]any{"project_id": pid, "experiment_id": exp, "transition": "abandon"})},
		{"artifact.submit reflection", tool(a, "artifact.submit", map[string]any{"project_id": pid, "target_type": "reflection", "target_id": rid,
			"role": "reflection_doc", "path": "reflections/again.md"})},
		{"review.request reflection", tool(a, "review.request", map[string]any{"project_id": pid, "target_type": "reflection", "target_id": rid,
			"role": "reflection_reviewer"})},
		{"reflection.transition", tool(a, "reflection.transition", map[string]any{"project_id": pid, "reflection_id": rid, "transition": "abandon"})},
		{"console experiments page", func() string { return console.experimentRow(pid, exp) }},
		{"REST reflection.get", func() string {
			r := s.Do(t, http.MethodPost, "/v1/research/tools/reflection.get", s.OperatorToken, reflArgs)
			return fmt.Sprintf("%d %s", r.Status, r.Body)
		}},
	}
	const firstWrite = 11
	before := make([]string, len(reads))
	for i, r := range reads {
		before[i] = r.read()
		if strings.Contains(before[i], `"unavailable"`) || (i < firstWrite && strings.HasPrefix(before[i], `{"error"`)) {
			t.Fatalf("%s before the purge: %s", r.name, before[i])
		}
	}
	if rest := before[len(before)-1]; !strings.HasPrefix(rest, "200 ") {
		t.Fatalf("REST reflection.get before the purge: %s", truncate([]byte(rest)))
	}
	if !strings.Contains(before[0], `"status":"complete"`) || !strings.Contains(before[7], `"status":"published"`) {
		t.Fatalf("not finished before the purge:\n%s\n%s", before[0], before[7])
	}
	for i := firstWrite; i < firstWrite+6; i++ {
		if !strings.Contains(before[i], `"code":"gate_blocked"`) {
			t.Errorf("%s against finished work: %s, want gate_blocked", reads[i].name, before[i])
		}
	}

	deleteWorkflows(t, s, expWF, reflWF)

	for i, r := range reads {
		if after := r.read(); after != before[i] {
			t.Errorf("%s changed once Temporal purged the workflows:\nbefore %s\nafter  %s", r.name, truncate([]byte(before[i])), truncate([]byte(after)))
		}
	}
	// The upload issued while the experiment ran is refused as such.
	code, body := uploadAs(t, late, []byte("# Plan\nlate\n"))
	if code != http.StatusConflict || dig(body, "error", "code") != "gate_blocked" {
		t.Fatalf("late upload after the purge: %d %v, want 409 gate_blocked", code, body)
	}
}

// waitClosed waits until Temporal reports every workflow closed.
func waitClosed(t *testing.T, s *Stack, ids ...string) {
	t.Helper()
	c := s.Client(t)
	for _, id := range ids {
		waitFor(t, 30*time.Second, func() bool {
			d, err := c.DescribeWorkflowExecution(context.Background(), id, "")
			return err == nil && d.GetWorkflowExecutionInfo().GetCloseTime() != nil
		})
	}
}

// deleteWorkflows deletes the workflows' executions, as the namespace's
// retention does to closed workflows, and waits until Temporal knows none.
func deleteWorkflows(t *testing.T, s *Stack, ids ...string) {
	t.Helper()
	c := s.Client(t)
	ctx := context.Background()
	for _, id := range ids {
		if _, err := c.WorkflowService().DeleteWorkflowExecution(ctx, &workflowservice.DeleteWorkflowExecutionRequest{
			Namespace: "default", WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: id}}); err != nil {
			t.Fatalf("delete %s: %v", id, err)
		}
	}
	for _, id := range ids {
		waitFor(t, 60*time.Second, func() bool {
			_, err := c.DescribeWorkflowExecution(ctx, id, "")
			var nf *serviceerror.NotFound
			return errors.As(err, &nf)
		})
	}
}

// consoleClient is a signed-in operator console session over plain HTTP.
type consoleClient struct {
	t  *testing.T
	s  *Stack
	hc *http.Client
}

var csrfInput = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// consoleHTTP signs in to the console with the operator token.
func consoleHTTP(t *testing.T, s *Stack) *consoleClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &consoleClient{t: t, s: s, hc: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
	form := c.get("/console/signin")
	m := csrfInput.FindStringSubmatch(form)
	if m == nil {
		t.Fatalf("sign-in form has no csrf token: %s", truncate([]byte(form)))
	}
	resp, err := c.hc.PostForm(s.APIURL+"/console/signin", url.Values{"csrf_token": {m[1]}, "token": {s.OperatorToken}, "next": {"/console/sessions"}})
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("console sign-in: %d", resp.StatusCode)
	}
	return c
}

func (c *consoleClient) get(path string) string {
	c.t.Helper()
	resp, err := c.hc.Get(c.s.APIURL + path)
	if err != nil {
		c.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		c.t.Fatalf("GET %s: %d %s %v", path, resp.StatusCode, truncate(b), err)
	}
	return string(b)
}

// experimentRow is the experiment's row on the console's experiments page,
// filtered to its project.
func (c *consoleClient) experimentRow(project, id string) string {
	c.t.Helper()
	page := c.get("/console/experiments?project=" + url.QueryEscape(project))
	row := regexp.MustCompile(`<tr data-experiment="` + regexp.QuoteMeta(id) + `">.*?</tr>`).FindString(page)
	if row == "" {
		c.t.Fatalf("experiment %s not on the console's experiments page", id)
	}
	return row
}
