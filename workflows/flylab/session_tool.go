package flylab

import (
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

func operationKey(state SessionState, req ToolRequest) string {
	if req.OperationID == "" {
		return ""
	}
	return state.SessionID + "/" + req.Tool + "/" + req.OperationID
}

// validateTool runs before the update is written to history: unknown
// tools, operation-id conflicts, stale revisions and calls racing an
// in-flight mutation are rejected here and change nothing.
func (s *session) validateTool(ctx workflow.Context, req ToolRequest) error {
	if _, ok := activityFor[req.Tool]; !ok {
		return failure(CodeInvalidInput, "unknown or read-only tool "+req.Tool, map[string]any{"tool": req.Tool})
	}
	if key := operationKey(s.state, req); key != "" {
		if rec, ok := s.state.Operations[key]; ok {
			if rec.InputHash != req.InputHash {
				return failure(CodeInvalidInput, "operation_id was already used with a different request",
					map[string]any{"conflict": "operation_id_input_mismatch", "operation_id": req.OperationID})
			}
			return nil
		}
		if s.inFlight == key {
			return nil
		}
	}
	if s.inFlight != "" {
		return retryableFailure(CodeStaleState, "another mutation is in progress; the state revision will change",
			map[string]any{"state_revision": s.state.Revision, "running": s.state.Running})
	}
	if req.ExpectedRevision != s.state.Revision {
		return failure(CodeStaleState, fmt.Sprintf("expected_state_revision %d is stale; current is %d",
			req.ExpectedRevision, s.state.Revision),
			map[string]any{"expected_state_revision": req.ExpectedRevision, "state_revision": s.state.Revision})
	}
	return nil
}

func (s *session) handleTool(ctx workflow.Context, req ToolRequest) (ToolOutcome, error) {
	key := operationKey(s.state, req)
	if key != "" && s.inFlight == key {
		if err := workflow.Await(ctx, func() bool { return s.inFlight != key }); err != nil {
			return ToolOutcome{}, err
		}
	}
	if rec, ok := s.state.Operations[key]; ok && key != "" {
		out := rec.Outcome
		out.Replay, out.CreatedArtifactIDs, out.State = true, []string{}, s.state
		out.Stored = s.saved >= s.state.Revision
		return out, nil
	}
	if s.inFlight != "" {
		return s.fail(CodeStaleState, "another mutation is in progress; call inspect_flylab_state and retry",
			map[string]any{"state_revision": s.state.Revision, "running": s.state.Running}, true), nil
	}
	if req.ExpectedRevision != s.state.Revision {
		return s.fail(CodeStaleState, "the state revision moved; call inspect_flylab_state", nil), nil
	}
	inFlightKey := key
	if inFlightKey == "" {
		inFlightKey = fmt.Sprintf("rev-%d/%s", s.state.Revision, req.Tool)
	}
	s.inFlight, s.state.Running = inFlightKey, req.Tool
	defer func() { s.inFlight, s.state.Running = "", "" }()

	cancellable := workflow.GetVersion(ctx, cancelVersion, workflow.DefaultVersion, 1) == 1
	actx := ctx
	if cancellable {
		var cancelled bool
		actx, cancelled = s.beginCall(ctx, req.CallID)
		defer s.endCall()
		if cancelled {
			return s.abortedOutcome(req.Tool), nil
		}
	}
	if f := s.gate(req); f != nil {
		return s.outcome(f), nil
	}
	call := ToolCall{SessionID: s.state.SessionID, Tool: req.Tool, Args: req.Args, OperationKey: key,
		ResultKey: s.resultKey(ctx, req.Tool, key), Session: s.state,
		Stage: cancellable && stagedTools[req.Tool] && key != ""}
	call.DeferResult = defersResult(ctx, req.Tool)
	var effect ToolEffect
	err := s.runToolActivity(actx, req.Tool, call).Get(ctx, &effect)
	if cancellable && !s.passCancelCheck() {
		return s.abortedOutcome(req.Tool), nil
	}
	if err != nil {
		return s.fail(outageCode(req.Tool), "the FlyLab worker could not complete "+req.Tool+"; retry the same call",
			map[string]any{"cause": err.Error()}, true), nil
	}
	if effect.Failure != nil {
		return s.outcome(effect.Failure), nil
	}
	if call.Stage {
		if err := s.publish(ctx, call); err != nil {
			return s.fail(CodeSimulationUnavailable, "the result of "+req.Tool+" could not be published; retry the same call",
				map[string]any{"cause": err.Error()}, true), nil
		}
	}
	prev := s.state.Revision
	undo := s.beforeCommit(key)
	s.apply(ctx, effect.Patch)
	s.state.Revision++
	s.committed++
	out := ToolOutcome{PreviousRevision: prev, Revision: s.state.Revision, ResultKey: call.ResultKey,
		CreatedArtifactIDs: effect.CreatedArtifactIDs}
	if out.CreatedArtifactIDs == nil {
		out.CreatedArtifactIDs = []string{}
	}
	if key != "" {
		if s.state.Operations == nil {
			s.state.Operations = map[string]OperationRecord{}
		}
		s.state.Operations[key] = OperationRecord{Tool: req.Tool, InputHash: req.InputHash, Outcome: out}
	}
	if call.DeferResult {
		// The result exists only once the snapshot stored it: without it
		// the commit is undone, and the same call can be sent again.
		if err := s.storeSnapshot(ctx, deferredResult(call, effect)); err != nil {
			s.undo(undo)
			return s.fail(outageCode(req.Tool), "the result of "+req.Tool+" could not be stored; retry the same call",
				map[string]any{"cause": err.Error()}, true), nil
		}
	}
	_ = s.setGate(ctx)
	s.persist(ctx)
	out.State = s.state
	out.State.Running = "" // the state as committed: this call is done
	out.Stored = s.saved >= s.state.Revision
	return out, nil
}

func (s *session) outcome(f *ToolFailure) ToolOutcome {
	return ToolOutcome{PreviousRevision: s.state.Revision, Revision: s.state.Revision, Failure: f,
		CreatedArtifactIDs: []string{}, State: s.state}
}

func (s *session) fail(code, message string, details map[string]any, retryable ...bool) ToolOutcome {
	if details == nil {
		details = map[string]any{}
	}
	return s.outcome(&ToolFailure{Code: code, Message: message, Details: details, Retryable: len(retryable) > 0 && retryable[0]})
}

// gate applies the rules the session workflow is the authority for: the
// operator approval, the approved hash echoed exactly, one run per
// approved experiment.
func (s *session) gate(req ToolRequest) *ToolFailure {
	if req.Tool != ToolRun {
		return nil
	}
	var args struct {
		ExperimentID string `json:"experiment_id"`
		Hash         string `json:"approved_protocol_hash"`
	}
	if err := jsonUnmarshal(req.Args, &args); err != nil {
		return &ToolFailure{Code: CodeInvalidInput, Message: "arguments are not an object", Details: map[string]any{}}
	}
	e := s.state.Experiment
	switch {
	case e == nil || e.ID != args.ExperimentID:
		return &ToolFailure{Code: CodeNotFound, Message: "experiment " + args.ExperimentID + " is not this session's current experiment",
			Details: map[string]any{"experiment_id": args.ExperimentID}}
	case slices.Contains(s.state.RanIDs, e.ID) || e.Status == ExperimentRan:
		return &ToolFailure{Code: CodeRunLimitExceeded, Message: "this approved experiment already ran; design a new trial",
			Details: map[string]any{"experiment_id": e.ID, "batch_id": batchID(s.state)}}
	case e.Status != ExperimentApproved:
		return &ToolFailure{Code: CodeApprovalRequired, Message: "the operator has not approved this experiment (status " + e.Status + ")",
			Details: map[string]any{"experiment_id": e.ID, "status": e.Status, "pending_protocol_hash": e.ProtocolHash, "reason": e.Reason}}
	case args.Hash != e.ProtocolHash:
		return &ToolFailure{Code: CodeEvidenceMismatch, Message: "approved_protocol_hash does not match the approval",
			Details: map[string]any{"approved_protocol_hash": e.ProtocolHash, "supplied": args.Hash}}
	}
	return nil
}

func batchID(st SessionState) string {
	if st.Batch == nil {
		return ""
	}
	return st.Batch.ID
}

// localToolsVersion marks the change that runs the short tools as local
// activities; histories recorded before it replay with regular activities.
const localToolsVersion = "flylab-local-short-tools"

// localTools are the tools whose activity is a short pure computation plus
// one keyed database write: run in the worker that holds the workflow task,
// they skip two matching round trips. The heavy ones (simulation, analysis,
// comparison, save) stay regular activities with their own retries and
// heartbeats.
var localTools = map[string]bool{ToolFind: true, ToolDraft: true, ToolDesign: true}

// LongTool says a tool runs as a regular activity, long enough for a read
// to see it in progress.
func LongTool(tool string) bool { return !localTools[tool] }

// runToolActivity runs the tool's activity, locally for the short tools.
func (s *session) runToolActivity(ctx workflow.Context, tool string, call ToolCall) workflow.Future {
	v := workflow.GetVersion(ctx, localToolsVersion, workflow.DefaultVersion, 1)
	if v == 1 && localTools[tool] {
		lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			StartToCloseTimeout: 30 * time.Second,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2,
				MaximumInterval: 5 * time.Second, MaximumAttempts: 6},
		})
		return workflow.ExecuteLocalActivity(lctx, activityFor[tool], call)
	}
	return workflow.ExecuteActivity(s.activityContext(ctx, tool), activityFor[tool], call)
}

// analysisHeartbeatVersion marks the change that gives the analysis
// activity a heartbeat timeout; histories recorded before it replay with
// the start-to-close timeout alone.
const analysisHeartbeatVersion = "flylab-analysis-heartbeat"

// activityHeartbeatTimeout is how long a heartbeating activity may go
// silent before Temporal treats its worker as lost and retries it.
const activityHeartbeatTimeout = 5 * time.Second

// activityContext sets each tool's timeouts and retry policy: the
// simulation and the analysis heartbeat, so a lost worker is noticed in
// seconds instead of after the start-to-close timeout.
func (s *session) activityContext(ctx workflow.Context, tool string) workflow.Context {
	retry := &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2,
		MaximumInterval: 5 * time.Second, MaximumAttempts: 6}
	opts := workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: retry}
	switch tool {
	case ToolRun:
		opts.StartToCloseTimeout = 10 * time.Minute
		opts.HeartbeatTimeout = activityHeartbeatTimeout
	case ToolAnalyze:
		if workflow.GetVersion(ctx, analysisHeartbeatVersion, workflow.DefaultVersion, 1) == 1 {
			opts.HeartbeatTimeout = activityHeartbeatTimeout
		}
	}
	return workflow.WithActivityOptions(ctx, opts)
}
