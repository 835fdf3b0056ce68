package flylab

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
)

// publishes records what the PublishStaged local activity was asked to
// publish, and the Stage flag each tool activity saw.
type publishes struct {
	mu     sync.Mutex
	keys   []string
	staged map[string]bool
}

func (p *publishes) publish(_ context.Context, in PublishRequest) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys = append(p.keys, in.OperationKey)
	return nil
}

func (p *publishes) sawStage(tool string, stage bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.staged == nil {
		p.staged = map[string]bool{}
	}
	p.staged[tool] = stage
}

func (p *publishes) published() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.keys...)
}

// approvedSession is a session whose current experiment is approved, so
// run_fly_simulation passes the gate.
func approvedSession() SessionInput {
	return SessionInput{State: SessionState{SessionID: "session_c", Revision: 6,
		Experiment: &ExperimentRef{ID: "exp_1", ProtocolHash: testHash, Status: ExperimentApproved}}}
}

func runRequest(callID string) ToolRequest {
	args, _ := json.Marshal(map[string]any{"experiment_id": "exp_1", "approved_protocol_hash": testHash, "operation_id": "op-run"})
	return ToolRequest{Tool: ToolRun, Args: args, ExpectedRevision: 6, OperationID: "op-run", InputHash: "h", CallID: callID}
}

// newCancelEnv registers a simulation that takes simulate (or until its
// context is cancelled) and the publish activity.
func newCancelEnv(t *testing.T, simulate time.Duration, p *publishes, stored *snapshots) *testsuite.TestWorkflowEnvironment {
	env := newEnvStoring(t, stored.save)
	env.SetTestTimeout(30 * time.Second)
	env.RegisterActivityWithOptions(func(ctx context.Context, c ToolCall) (ToolEffect, error) {
		p.sawStage(c.Tool, c.Stage)
		for end := time.Now().Add(simulate); time.Now().Before(end); {
			activity.RecordHeartbeat(ctx, 1)
			select {
			case <-ctx.Done():
				return ToolEffect{}, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
		return ToolEffect{CreatedArtifactIDs: []string{"batch_1"},
			Patch: Patch{Batch: &BatchRef{ID: "batch_1", ExperimentID: "exp_1", RunContentHash: testHash}}}, nil
	}, activity.RegisterOptions{Name: ActivitySimulate})
	env.RegisterActivityWithOptions(p.publish, activity.RegisterOptions{Name: ActivityPublish}) // replaces newEnvStoring's
	env.OnSignalExternalWorkflow(mock.Anything, ExperimentWorkflowID("exp_1"), "", RanSignal, mock.Anything).Return(nil)
	return env
}

// TestSession_CancelBeforeCommitAbortsAndPublishesNothing performs the
// contract's cancellation: the caller cancels while the simulation runs;
// the call answers ABORTED (AbortError), the revision does not move, no
// batch is published and no snapshot is stored.
func TestSession_CancelBeforeCommitAbortsAndPublishesNothing(t *testing.T) {
	p, stored := &publishes{}, &snapshots{}
	env := newCancelEnv(t, time.Second, p, stored)
	var got ToolOutcome
	var gotErr error
	env.RegisterDelayedCallback(func() { callTool(env, "run", runRequest("cred/mcp/7"), &got, &gotErr) }, time.Millisecond)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(CancelSignal, CancelRequest{CallID: "cred/mcp/7"}) }, 50*time.Millisecond)
	var state SessionState
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(StateQuery)
		if err == nil {
			_ = v.Get(&state)
		}
		env.CancelWorkflow()
	}, time.Minute)
	env.ExecuteWorkflow(Session, approvedSession())
	if gotErr != nil {
		t.Fatal(gotErr)
	}
	if got.Failure == nil || got.Failure.Code != CodeAborted || got.Failure.Details["name"] != AbortErrorName || !got.Failure.Retryable {
		t.Fatalf("outcome %+v, want a retryable ABORTED failure named AbortError", got.Failure)
	}
	if got.Revision != 6 || state.Revision != 6 || state.Batch != nil || state.Experiment.Status != ExperimentApproved {
		t.Fatalf("an aborted call changed the session: outcome rev %d, state rev %d batch %+v", got.Revision, state.Revision, state.Batch)
	}
	if keys := p.published(); len(keys) != 0 {
		t.Fatalf("an aborted call published %v", keys)
	}
	if revs := stored.revisions(); len(revs) != 0 {
		t.Fatalf("an aborted call stored snapshots %v", revs)
	}
	if !p.staged[ToolRun] {
		t.Fatal("the simulation was not asked to stage its batch")
	}
}

// TestSession_CancelOvertakingItsCallAbortsIt proves a cancel that reaches
// the session before its call (another api replica sent it first) still
// aborts that call, and the simulation never starts.
func TestSession_CancelOvertakingItsCallAbortsIt(t *testing.T) {
	p, stored := &publishes{}, &snapshots{}
	env := newCancelEnv(t, time.Millisecond, p, stored)
	var got ToolOutcome
	var gotErr error
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(CancelSignal, CancelRequest{CallID: "cred/mcp/9"}) }, time.Millisecond)
	env.RegisterDelayedCallback(func() { callTool(env, "run", runRequest("cred/mcp/9"), &got, &gotErr) }, time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(Session, approvedSession())
	if gotErr != nil || got.Failure == nil || got.Failure.Code != CodeAborted {
		t.Fatalf("outcome %+v (%v), want ABORTED", got.Failure, gotErr)
	}
	if _, ran := p.staged[ToolRun]; ran {
		t.Fatal("the simulation ran for a call cancelled before it arrived")
	}
}

// TestSession_CancelAfterCommitChangesNothing proves a cancel that arrives
// once the call committed, or names another call, leaves the commit as
// it is: published once, revision moved, retrying the operation replays it.
func TestSession_CancelAfterCommitChangesNothing(t *testing.T) {
	p, stored := &publishes{}, &snapshots{}
	env := newCancelEnv(t, time.Millisecond, p, stored)
	var got, replay ToolOutcome
	var gotErr, replayErr error
	env.RegisterDelayedCallback(func() { callTool(env, "run", runRequest("cred/mcp/1"), &got, &gotErr) }, time.Millisecond)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(CancelSignal, CancelRequest{CallID: "cred/mcp/1"})
		env.SignalWorkflow(CancelSignal, CancelRequest{CallID: "cred/mcp/2"})
	}, time.Second)
	env.RegisterDelayedCallback(func() { callTool(env, "again", runRequest("cred/mcp/3"), &replay, &replayErr) }, 2*time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(Session, approvedSession())
	if gotErr != nil || got.Failure != nil || got.Revision != 7 {
		t.Fatalf("outcome %+v (%v), want a commit at revision 7", got, gotErr)
	}
	if keys := p.published(); len(keys) != 1 || keys[0] != "session_c/run_fly_simulation/op-run" {
		t.Fatalf("published %v, want the operation's batch once", keys)
	}
	if replayErr != nil || !replay.Replay || replay.Revision != 7 {
		t.Fatalf("retry of the committed operation: %+v (%v), want its replay", replay, replayErr)
	}
}
