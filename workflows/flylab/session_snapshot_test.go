package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
)

// snapshots records what the SaveSession local activity was asked to store.
type snapshots struct {
	mu    sync.Mutex
	saved []SessionState
	fail  func(rev int) bool
}

func (s *snapshots) save(_ context.Context, in StateSnapshot) error {
	var st SessionState
	if err := json.Unmarshal(in.State, &st); err != nil {
		return err
	}
	if st.Revision != in.Revision || st.SessionID != in.SessionID {
		return errors.New("snapshot header does not match its state")
	}
	if s.fail != nil && s.fail(in.Revision) {
		return errors.New("database briefly unavailable")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saved = append(s.saved, st)
	return nil
}

func (s *snapshots) revisions() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for _, st := range s.saved {
		out = append(out, st.Revision)
	}
	return out
}

// discoverEach makes every find_fly_circuits commit a new discovery.
func discoverEach(env *testsuite.TestWorkflowEnvironment) {
	env.RegisterActivityWithOptions(func(ctx context.Context, c ToolCall) (ToolEffect, error) {
		id := "dd_" + c.ResultKey
		return ToolEffect{CreatedArtifactIDs: []string{id}, Patch: Patch{Discovery: &DiscoveryRef{ID: id}}}, nil
	}, activity.RegisterOptions{Name: ActivityFindCircuits})
}

// TestSession_CommitIsStoredBeforeTheUpdateAnswers proves a committed tool
// call's state is in the snapshot (without the transient running tool)
// by the time the agent gets its answer, so a workflow purged right after
// loses nothing.
func TestSession_CommitIsStoredBeforeTheUpdateAnswers(t *testing.T) {
	snaps := &snapshots{}
	env := newEnvStoring(t, snaps.save)
	discoverEach(env)
	var out ToolOutcome
	var err error
	var storedAtAnswer []int
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(ToolUpdate, "u1", &testsuite.TestUpdateCallback{OnAccept: func() {}, OnReject: func(e error) { err = e },
			OnComplete: func(v any, e error) {
				storedAtAnswer = snaps.revisions()
				if e != nil {
					err = e
					return
				}
				out = v.(ToolOutcome)
			}}, ToolRequest{Tool: ToolFind, ExpectedRevision: 1, OperationID: "op-1", InputHash: "h", Args: json.RawMessage(`{}`)})
	}, time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(Session, SessionInput{State: SessionState{SessionID: "session_a", Owner: "cred_1"}})
	if err != nil || out.Failure != nil || out.Revision != 2 || !out.Stored {
		t.Fatalf("find: err=%v outcome=%+v (want stored)", err, out)
	}
	if len(storedAtAnswer) != 1 || storedAtAnswer[0] != 2 {
		t.Fatalf("snapshots stored when the update answered: %v, want [2]", storedAtAnswer)
	}
	st := snaps.saved[0]
	if st.Discovery == nil || st.Owner != "cred_1" || st.Running != "" || st.Operations["session_a/find_fly_circuits/op-1"].InputHash != "h" {
		t.Fatalf("stored state %+v lacks the commit, the owner or the operation record, or names a running tool", st)
	}
}

// TestSession_OperatorDecisionIsStored proves an approval mirrored from the
// experiment workflow (a revision with no tool call) is stored too.
func TestSession_OperatorDecisionIsStored(t *testing.T) {
	snaps := &snapshots{}
	env := newEnvStoring(t, snaps.save)
	st := SessionState{SessionID: "session_a", Revision: 4, Experiment: &ExperimentRef{ID: "exp_1", ProtocolHash: testHash, Status: ExperimentAwaiting}}
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(DecisionSignal, Decision{ExperimentID: "exp_1", Status: ExperimentApproved, ProtocolHash: testHash, DecidedAt: "t", DecisionID: testDecisionID})
	}, time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, 2*time.Second)
	env.ExecuteWorkflow(Session, SessionInput{State: st})
	if revs := snaps.revisions(); len(revs) != 1 || revs[0] != 5 || snaps.saved[0].Experiment.Status != ExperimentApproved {
		t.Fatalf("stored %v (%+v), want revision 5 approved", revs, snaps.saved)
	}
}

// TestSession_FailedSnapshotKeepsTheCommitAndTheNextStoresIt proves a
// database outage during the snapshot does not fail the agent's call
// (one whose activity stored its own result, here a draft), and the next
// commit stores the whole state, the earlier commit included.
func TestSession_FailedSnapshotKeepsTheCommitAndTheNextStoresIt(t *testing.T) {
	snaps := &snapshots{fail: func(rev int) bool { return rev == 2 }}
	env := newEnvStoring(t, snaps.save)
	discoverEach(env)
	env.RegisterActivityWithOptions(func(context.Context, ToolCall) (ToolEffect, error) {
		return ToolEffect{CreatedArtifactIDs: []string{"hyp_1"}, Patch: Patch{Hypothesis: &HypothesisRef{ID: "hyp_1"}}}, nil
	}, activity.RegisterOptions{Name: ActivityDraftHypothesis})
	var first, second ToolOutcome
	var err1, err2 error
	env.RegisterDelayedCallback(func() {
		callTool(env, "u1", ToolRequest{Tool: ToolDraft, ExpectedRevision: 1, Args: json.RawMessage(`{}`)}, &first, &err1)
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		callTool(env, "u2", ToolRequest{Tool: ToolFind, ExpectedRevision: 2, OperationID: "op-2", Args: json.RawMessage(`{}`)}, &second, &err2)
	}, time.Minute)
	env.RegisterDelayedCallback(env.CancelWorkflow, 2*time.Minute)
	env.ExecuteWorkflow(Session, SessionInput{State: SessionState{SessionID: "session_a"}})
	if err1 != nil || first.Failure != nil || first.Revision != 2 || err2 != nil || second.Revision != 3 {
		t.Fatalf("commits: %v %+v / %v %+v", err1, first, err2, second)
	}
	// The first answer says its state is not stored (the api then routes
	// reads to the workflow); the second stored the whole state.
	if first.Stored || !second.Stored {
		t.Fatalf("stored flags: first %v second %v, want false then true", first.Stored, second.Stored)
	}
	if revs := snaps.revisions(); len(revs) != 1 || revs[0] != 3 || len(snaps.saved[0].Operations) != 1 {
		t.Fatalf("stored %v, want only revision 3 with its operation record", revs)
	}
}

// TestSession_RestoredFromSnapshotContinuesItsRevision proves a session
// workflow started from a stored snapshot (as the API does once the old
// workflow is gone) answers from it and moves its revision forward.
func TestSession_RestoredFromSnapshotContinuesItsRevision(t *testing.T) {
	snaps := &snapshots{}
	env := newEnvStoring(t, snaps.save)
	discoverEach(env)
	stored := SessionState{SessionID: "session_a", Owner: "cred_1", Revision: 9,
		Bundle:     &BundleRef{ID: "bundle_1", ManifestHash: testHash},
		Operations: map[string]OperationRecord{"session_a/save_fly_evidence/save-1": {Tool: ToolSave, InputHash: "hs", Outcome: ToolOutcome{Revision: 9}}}}
	var replay, next ToolOutcome
	var err1, err2 error
	env.RegisterDelayedCallback(func() {
		callTool(env, "u1", ToolRequest{Tool: ToolSave, ExpectedRevision: 3, OperationID: "save-1", InputHash: "hs", Args: json.RawMessage(`{}`)}, &replay, &err1)
		callTool(env, "u2", ToolRequest{Tool: ToolFind, ExpectedRevision: 9, Args: json.RawMessage(`{}`)}, &next, &err2)
	}, time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(Session, SessionInput{State: stored})
	if err1 != nil || !replay.Replay || replay.Revision != 9 {
		t.Fatalf("a stored operation did not replay: %v %+v", err1, replay)
	}
	// The restored operations carry on; the search after the saved bundle
	// starts a new mission, so the bundle leaves the current state.
	if err2 != nil || next.PreviousRevision != 9 || next.Revision != 10 || len(next.State.Operations) != 1 || next.State.Bundle != nil {
		t.Fatalf("next commit: %v %+v", err2, next)
	}
	if revs := snaps.revisions(); len(revs) != 1 || revs[0] != 10 {
		t.Fatalf("stored %v, want [10] (9 was already stored)", revs)
	}
}
