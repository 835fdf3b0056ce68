package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	science "github.com/gatehouse/gatehouse/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/platform"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// mutate sends a mutating tool call to the caller's session workflow as
// an Update and wraps the committed result.
func (s *Service) mutate(ctx context.Context, p platform.Principal, tool *Tool, raw []byte, args map[string]any, progress ProgressFunc) map[string]any {
	name := tool.Name
	sessionID, _ := args["page_session_id"].(string)
	expected, _ := args["expected_state_revision"].(float64)
	opID, _ := args["operation_id"].(string)
	row, err := s.ownedSession(ctx, p, sessionID)
	if errors.Is(err, models.ErrNotFound) {
		return s.failure(name, sessionID, 0, &wf.ToolFailure{Code: wf.CodeNotFound,
			Message: "page_session_id is not a session of this API key", Details: map[string]any{"page_session_id": sessionID}})
	} else if err != nil {
		return s.failure(name, sessionID, 0, unavailable(err))
	}
	logical := map[string]any{}
	for k, v := range args {
		if k != "expected_state_revision" && k != "operation_id" {
			logical[k] = v
		}
	}
	inputHash, err := science.ContentHash(logical)
	if err != nil {
		return s.failure(name, sessionID, 0, invalidInput("arguments cannot be canonicalized", "", nil))
	}
	req := wf.ToolRequest{Tool: name, Args: json.RawMessage(raw), ExpectedRevision: int(expected), OperationID: opID,
		InputHash: inputHash, CallID: callIDFrom(ctx)}
	run := newRunProgress(progress)
	send := func() (wf.ToolOutcome, error) { return s.update(ctx, sessionID, req, run.progressFunc()) }
	route := s.routeReads(ctx, row, name)
	var out wf.ToolOutcome
	if opID != "" {
		out, err = s.inflight.do(ctx, sessionID+"\x00"+name+"\x00"+opID+"\x00"+inputHash, send)
	} else {
		out, err = send()
	}
	if rerr := route.settle(out, err); rerr != nil {
		return s.failure(name, sessionID, 0, unavailable(rerr))
	}
	if err != nil {
		var appErr *temporal.ApplicationError
		f := unavailable(err)
		if errors.As(err, &appErr) {
			var tf wf.ToolFailure
			if appErr.HasDetails() && appErr.Details(&tf) == nil && tf.Code != "" {
				if tf.Details == nil {
					tf.Details = map[string]any{}
				}
				f = &tf
			}
		}
		return s.failure(name, sessionID, s.revisionForFailure(ctx, sessionID), f)
	}
	if out.Failure != nil {
		rev := out.State.Revision
		if rev == 0 {
			rev = s.revisionForFailure(ctx, sessionID)
		}
		return s.failure(name, sessionID, rev, out.Failure)
	}
	stored, err := models.LoadToolResult(ctx, s.deps.DB, out.ResultKey)
	if err != nil {
		return s.failure(name, sessionID, out.State.Revision, unavailable(err))
	}
	var data map[string]any
	if err := json.Unmarshal(stored, &data); err != nil {
		return s.failure(name, sessionID, out.State.Revision, unavailable(err))
	}
	if run != nil && name == wf.ToolRun {
		run.finish(data)
	}
	s.decorate(name, out.State, data)
	return s.success(name, out.State, out, opID, data)
}

// revisionForFailure is the revision a failure envelope reports: read
// briefly, since the call already failed, and from the database when
// Temporal does not answer in time.
func (s *Service) revisionForFailure(ctx context.Context, sessionID string) int {
	qctx, cancel := context.WithTimeout(ctx, failureReadTimeout)
	defer cancel()
	st, err := s.state(qctx, sessionID)
	if err != nil {
		st, _ = StoredSession(ctx, s.deps.DB, sessionID)
	}
	return st.Revision
}

// failureReadTimeout bounds the state read of a failure envelope.
const failureReadTimeout = 2 * time.Second

// decorate adds the fields that reflect the state now: next_action, and
// the design's gate.
func (s *Service) decorate(name string, st wf.SessionState, data map[string]any) {
	data["next_action"] = nextAction(st)
	if name == wf.ToolDesign {
		data["human_gate"] = humanGate(st)
		if exp, ok := data["experiment"].(map[string]any); ok && st.Experiment != nil && exp["id"] == st.Experiment.ID {
			exp["approved"] = st.Experiment.Status == wf.ExperimentApproved || st.Experiment.Status == wf.ExperimentRan
			data["approval_required"] = !exp["approved"].(bool)
			data["agent_actionable"] = exp["approved"]
			if exp["approved"].(bool) {
				data["agent_status"], data["blocked_by"] = "ready", []string{}
			}
		}
	}
}

// update sends the Update and waits for its result; for a run it relays
// the simulation's heartbeat progress while it waits.
// A session whose workflow is gone (never started, or closed and purged,
// or terminated) is resumed from its stored state first.
func (s *Service) update(ctx context.Context, sessionID string, req wf.ToolRequest, progress ProgressFunc) (wf.ToolOutcome, error) {
	var out wf.ToolOutcome
	opts := client.UpdateWorkflowOptions{
		UpdateID:   "tool/" + randomHex(12),
		WorkflowID: wf.SessionWorkflowID(sessionID), UpdateName: wf.ToolUpdate, Args: []any{req},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	}
	if progress != nil && req.Tool == wf.ToolRun {
		// UpdateWorkflow returns once the update has completed, so the
		// relay starts first: progress is reported while the run runs.
		done := make(chan struct{})
		defer close(done)
		go s.relayProgress(ctx, sessionID, progress, done)
	}
	handle, err := s.deps.Temporal.UpdateWorkflow(ctx, opts)
	var gone *serviceerror.NotFound
	if errors.As(err, &gone) {
		if rerr := s.resume(ctx, sessionID); rerr != nil {
			return out, rerr
		}
		handle, err = s.deps.Temporal.UpdateWorkflow(ctx, opts)
	}
	if err == nil {
		err = handle.Get(ctx, &out)
	}
	if err != nil && ctx.Err() != nil {
		// The caller went away: abort the call unless it committed.
		return s.abandoned(ctx, sessionID, req, opts.UpdateID)
	}
	return out, err
}

// relayProgress polls the session workflow's pending simulation activity
// and reports its heartbeat (runs done) until done closes.
func (s *Service) relayProgress(ctx context.Context, sessionID string, progress ProgressFunc, done <-chan struct{}) {
	last := -1
	tick := time.NewTicker(150 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		desc, err := s.deps.Temporal.DescribeWorkflowExecution(ctx, wf.SessionWorkflowID(sessionID), "")
		if err != nil {
			continue
		}
		for _, a := range desc.GetPendingActivities() {
			if a.GetActivityType().GetName() != wf.ActivitySimulate || a.GetHeartbeatDetails() == nil {
				continue
			}
			var n [2]int
			if err := converterGet(a.GetHeartbeatDetails(), &n); err == nil && n[0] != last {
				last = n[0]
				progress(float64(n[0]), float64(n[1]))
			}
		}
	}
}
