package e2e

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	researchwf "github.com/gatehouse/gatehouse/workflows/research"
)

// TestSandbox_ThousandsOfExtendsStayWithinTheLifetimeAndHistoryLimits:
// an agent extends a sandbox past the signals one run may handle (about
// 5,000 used to hit Temporal's history limit, terminating the workflow
// without teardown). The run continues as new, the machine stays up, the
// limit stops at the lifetime cap however often it is extended, and the
// sandbox is still released normally.
func TestSandbox_ThousandsOfExtendsStayWithinTheLifetimeAndHistoryLimits(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	pid := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("e2e-sandbox-life")}), "project", "id"))
	agent := connectResearch(t, s, s.APIKey)
	key, pub := sandboxKey(t)
	sb := agent.must("sandbox.request", map[string]any{"project_id": pid, "public_key": pub, "time_limit": 600})
	uid := str(sb["sandbox_uid"])
	if sb["status"] != "running" {
		t.Fatalf("sandbox.request: %v", sb)
	}
	ctx := context.Background()
	c := s.Client(t)
	id := researchwf.SandboxWorkflowID(uid)
	first, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	firstRun := first.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	signals := researchwf.SandboxContinueAfter + 20
	for range signals {
		if err := c.SignalWorkflow(ctx, id, "", researchwf.SandboxExtendSignal, researchwf.SandboxExtend{Seconds: 1800}); err != nil {
			t.Fatal(err)
		}
	}
	var st researchwf.SandboxState
	waitFor(t, 60*time.Second, func() bool {
		v, err := c.QueryWorkflow(ctx, id, "", researchwf.SandboxStateQuery)
		return err == nil && v.Get(&st) == nil && st.Revision >= signals
	})
	latest, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	if latest.GetWorkflowExecutionInfo().GetExecution().GetRunId() == firstRun {
		t.Fatalf("%d signals and the workflow never continued as new", signals)
	}
	start := first.GetWorkflowExecutionInfo().GetStartTime().AsTime()
	if st.LifetimeEndsAt.IsZero() || !st.ExpiresAt.Equal(st.LifetimeEndsAt) || st.LifetimeEndsAt.Sub(start) > 24*time.Hour+time.Minute {
		t.Fatalf("after %d extends: expires %v, lifetime ends %v, started %v", signals, st.ExpiresAt, st.LifetimeEndsAt, start)
	}
	ext := agent.must("sandbox.extend", map[string]any{"project_id": pid, "sandbox_uid": uid, "seconds": 1800})
	if got, _ := time.Parse(time.RFC3339Nano, str(ext["expires_at"])); !got.Equal(st.LifetimeEndsAt) {
		t.Fatalf("an extend at the cap moved the limit: %v", ext)
	}
	conn, err := sshDial(sb, key)
	if err != nil {
		t.Fatalf("the machine did not survive continue-as-new: %v", err)
	}
	_ = conn.Close()
	rel := agent.must("sandbox.release", map[string]any{"project_id": pid, "sandbox_uid": uid, "confirm_retained": true})
	if rel["status"] != "terminated" {
		t.Fatalf("release after continue-as-new: %v", rel)
	}
	writeRunHistory(t, s, id, firstRun, "research/testdata/sandbox-histories", "local-extended-until-continue-as-new")
	recordSandboxHistory(t, s, uid, "local-resumed-after-continue-as-new-released")
}

// TestSandbox_OrphanReaperDestroysASandboxWhoseWorkflowIsGone: a sandbox
// workflow terminated by hand (or lost) left its SSH server up with
// nothing to tear it down. The host's reaper schedule destroys it and
// ends its row.
func TestSandbox_OrphanReaperDestroysASandboxWhoseWorkflowIsGone(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	pid := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("e2e-sandbox-orphan")}), "project", "id"))
	agent := connectResearch(t, s, s.APIKey)
	key, pub := sandboxKey(t)
	sb := agent.must("sandbox.request", map[string]any{"project_id": pid, "public_key": pub, "time_limit": 600})
	uid := str(sb["sandbox_uid"])
	ctx := context.Background()
	c := s.Client(t)
	if err := c.TerminateWorkflow(ctx, researchwf.SandboxWorkflowID(uid), "", "lost"); err != nil {
		t.Fatal(err)
	}
	conn, err := sshDial(sb, key)
	if err != nil {
		t.Fatalf("the orphan is not up, nothing to reap: %v", err)
	}
	_ = conn.Close()

	db := researchDB(t, s)
	var hostQueue string
	if err := db.Table("research_sandboxes").Select("host_queue").Where("uid = ?", uid).Scan(&hostQueue).Error; err != nil || hostQueue == "" {
		t.Fatalf("host queue %q %v", hostQueue, err)
	}
	h := c.ScheduleClient().GetHandle(ctx, researchwf.SandboxReaperScheduleID+"-"+hostQueue)
	if err := h.Trigger(ctx, client.ScheduleTriggerOptions{}); err != nil {
		t.Fatalf("trigger the host's reaper: %v", err)
	}
	var status, lastError string
	waitFor(t, 30*time.Second, func() bool {
		row := db.Table("research_sandboxes").Select("status").Where("uid = ?", uid).Row()
		_ = row.Scan(&status)
		return status == "terminated"
	})
	_ = db.Table("research_sandboxes").Select("last_error").Where("uid = ?", uid).Scan(&lastError)
	if conn, err := sshDial(sb, key); err == nil {
		_ = conn.Close()
		t.Fatal("the orphan's SSH server is still up after the reaper ran")
	}
	if lastError == "" {
		t.Fatalf("the reaped row says nothing: %q", lastError)
	}
	recordReaperHistory(t, s)
}

// recordReaperHistory writes the newest completed reaper run's history
// for the replay test when GATEHOUSE_RECORD_HISTORIES=1.
func recordReaperHistory(t *testing.T, s *Stack) {
	t.Helper()
	q := "WorkflowType = '" + researchwf.SandboxReaperWorkflowName + "' AND ExecutionStatus = 'Completed'"
	var id, run string
	waitFor(t, 20*time.Second, func() bool {
		page, err := s.Client(t).ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: q})
		if err != nil || len(page.Executions) == 0 {
			return false
		}
		id, run = page.Executions[0].GetExecution().GetWorkflowId(), page.Executions[0].GetExecution().GetRunId()
		return true
	})
	writeRunHistory(t, s, id, run, "research/testdata/sandbox-reaper-histories", "host-reaped-orphan")
}
