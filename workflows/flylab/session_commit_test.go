package flylab

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
)

// deferredSaves records the deferred results the SaveSession local
// activity was asked to store with their snapshots.
type deferredSaves struct {
	snapshots
	mu      sync.Mutex
	results []DeferredResult
}

func (d *deferredSaves) save(ctx context.Context, in StateSnapshot) error {
	if err := d.snapshots.save(ctx, in); err != nil {
		return err
	}
	if in.Result != nil {
		d.mu.Lock()
		d.results = append(d.results, *in.Result)
		d.mu.Unlock()
	}
	return nil
}

// findCalls registers a find activity that records the calls it gets.
func findCalls(env *testsuite.TestWorkflowEnvironment) *[]ToolCall {
	var mu sync.Mutex
	calls := &[]ToolCall{}
	env.RegisterActivityWithOptions(func(_ context.Context, c ToolCall) (ToolEffect, error) {
		mu.Lock()
		*calls = append(*calls, c)
		mu.Unlock()
		id := "dd_" + c.ResultKey
		return ToolEffect{CreatedArtifactIDs: []string{id}, Patch: Patch{Discovery: &DiscoveryRef{ID: id, ResultKey: c.ResultKey}}}, nil
	}, activity.RegisterOptions{Name: ActivityFindCircuits})
	return calls
}

// TestSession_FindStoresItsResultWithTheSnapshot proves a search's result
// is stored by the commit's snapshot (one transaction), not by the search
// activity: the activity is told to defer it, and the snapshot names the
// result's key, arguments and the artifact it must reproduce.
func TestSession_FindStoresItsResultWithTheSnapshot(t *testing.T) {
	saves := &deferredSaves{}
	env := newEnvStoring(t, saves.save)
	calls := findCalls(env)
	var out ToolOutcome
	var err error
	args := json.RawMessage(`{"query":"backward walking"}`)
	env.RegisterDelayedCallback(func() {
		callTool(env, "u1", ToolRequest{Tool: ToolFind, ExpectedRevision: 1, OperationID: "op-1", InputHash: "h", Args: args}, &out, &err)
	}, time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(Session, SessionInput{State: SessionState{SessionID: "session_a"}})
	if err != nil || out.Failure != nil || out.Revision != 2 || !out.Stored {
		t.Fatalf("find: %v %+v", err, out)
	}
	if len(*calls) != 1 || !(*calls)[0].DeferResult {
		t.Fatalf("find activity calls %+v, want one told to defer its result", *calls)
	}
	key := "session_a/find_fly_circuits/op-1/u1"
	if len(saves.results) != 1 || saves.results[0].Key != key || saves.results[0].Tool != ToolFind ||
		saves.results[0].ArtifactID != "dd_"+key || string(saves.results[0].Args) != string(args) {
		t.Fatalf("deferred results stored %+v, want the find's under %s", saves.results, key)
	}
	if revs := saves.revisions(); len(revs) != 1 || revs[0] != 2 || out.ResultKey != key {
		t.Fatalf("snapshots %v, result key %q: want revision 2 stored once, under %s", revs, out.ResultKey, key)
	}
}

// TestSession_FindWhoseResultCannotBeStoredChangesNothing proves a search
// whose result and snapshot the database refuses answers a retryable
// failure and leaves the session as it was: same revision, no discovery,
// no operation record, so the same call sent again commits normally.
func TestSession_FindWhoseResultCannotBeStoredChangesNothing(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	saves := &deferredSaves{snapshots: snapshots{fail: func(int) bool { return down.Load() }}}
	env := newEnvStoring(t, saves.save)
	findCalls(env)
	req := ToolRequest{Tool: ToolFind, ExpectedRevision: 1, OperationID: "op-1", InputHash: "h", Args: json.RawMessage(`{}`)}
	var first, second ToolOutcome
	var err1, err2 error
	var between SessionState
	env.RegisterDelayedCallback(func() { callTool(env, "u1", req, &first, &err1) }, time.Second)
	env.RegisterDelayedCallback(func() {
		down.Store(false)
		v, err := env.QueryWorkflow(StateQuery)
		if err == nil {
			err = v.Get(&between)
		}
		if err != nil {
			t.Errorf("state query: %v", err)
		}
		callTool(env, "u2", req, &second, &err2)
	}, time.Minute)
	env.RegisterDelayedCallback(env.CancelWorkflow, 2*time.Minute)
	env.ExecuteWorkflow(Session, SessionInput{State: SessionState{SessionID: "session_a"}})
	if err1 != nil || first.Failure == nil || !first.Failure.Retryable || first.Revision != 1 {
		t.Fatalf("first find: %v %+v, want a retryable failure at revision 1", err1, first)
	}
	if between.Revision != 1 || between.Discovery != nil || len(between.Operations) != 0 {
		t.Fatalf("state after the refused find: %+v, want revision 1 with no discovery and no operation record", between)
	}
	if err2 != nil || second.Failure != nil || second.Replay || second.Revision != 2 || !second.Stored {
		t.Fatalf("the same find again: %v %+v, want a fresh commit at revision 2", err2, second)
	}
	if revs := saves.revisions(); len(revs) != 1 || revs[0] != 2 || len(saves.results) != 1 {
		t.Fatalf("stored snapshots %v and results %d, want revision 2 with its result once", revs, len(saves.results))
	}
}
