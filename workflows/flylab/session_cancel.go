package flylab

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// CancelSignal carries a caller's cancellation of a tool call (a
// CancelRequest): the MCP client's notifications/cancelled, or a dropped
// connection seen by the api replica that held the call.
const CancelSignal = "flylab.cancel"

// CodeAborted is the failure code of a call cancelled before its commit.
// It is not one of the contract's domain error codes: the contract's
// callers reject such a call with an AbortError, and the envelope names it
// (error.details.name) so a client that still reads the answer can.
const CodeAborted = "ABORTED"

// AbortErrorName is the error name a cancelled call rejects with.
const AbortErrorName = "AbortError"

// CancelRequest names the call to cancel by the caller identity the API
// put in its ToolRequest (CallID).
type CancelRequest struct {
	CallID string `json:"call_id"`
}

// cancelMemory is how long a cancel that matched no running call is kept:
// across api replicas a cancel may overtake the call it cancels by a few
// milliseconds. It is short because MCP clients number their requests
// from the start again when they reconnect, so a remembered cancel could
// otherwise abort a later, unrelated call that reuses its id.
const cancelMemory = 10 * time.Second

// maxRememberedCancels bounds the cancels kept for calls not yet seen.
const maxRememberedCancels = 64

// cancelVersion marks the change that lets a cancellation observed before
// commit abort a tool call, and that stages the batch and the evidence
// bundle until the commit publishes them. Histories recorded before it
// replay with calls that commit whatever the caller does.
const cancelVersion = "flylab-cancel-before-commit"

// cancellation is the session's view of cancel signals: the running
// call's identity and how to stop it, and recent cancels of calls it has
// not seen yet.
type cancellation struct {
	running    string               // CallID of the call in flight, "" when none or no CallID
	committing bool                 // the call passed its last cancel check
	aborted    bool                 // the call in flight was cancelled
	stop       workflow.CancelFunc  // cancels the call's activity
	early      map[string]time.Time // cancels that matched no running call, by CallID
	order      []string             // early's keys, oldest first
}

// listenForCancels receives cancel signals for the life of the run.
func (s *session) listenForCancels(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, CancelSignal)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var req CancelRequest
			if !ch.Receive(ctx, &req) {
				return
			}
			s.cancelCall(ctx, req.CallID)
		}
	})
}

// cancelCall aborts the running call when it is the one named and has not
// reached its commit, or remembers the cancel for a call not yet seen.
func (s *session) cancelCall(ctx workflow.Context, callID string) {
	c := &s.cancel
	if callID == "" {
		return
	}
	if callID == c.running {
		if !c.committing && !c.aborted {
			c.aborted = true
			if c.stop != nil {
				c.stop()
			}
		}
		return
	}
	if c.early == nil {
		c.early = map[string]time.Time{}
	}
	if _, seen := c.early[callID]; !seen {
		c.order = append(c.order, callID)
	}
	c.early[callID] = workflow.Now(ctx)
	for len(c.order) > maxRememberedCancels {
		delete(c.early, c.order[0])
		c.order = c.order[1:]
	}
}

// beginCall marks callID as running and returns the context its activity
// runs in; it reports whether the call was already cancelled.
func (s *session) beginCall(ctx workflow.Context, callID string) (workflow.Context, bool) {
	c := &s.cancel
	actx, stop := workflow.WithCancel(ctx)
	c.running, c.committing, c.aborted, c.stop = callID, false, false, stop
	if at, ok := c.early[callID]; ok && callID != "" {
		delete(c.early, callID)
		if workflow.Now(ctx).Sub(at) <= cancelMemory {
			c.aborted = true
		}
	}
	return actx, c.aborted
}

// passCancelCheck is the last point a cancel aborts the call: after it the
// call commits whatever the caller does. It reports whether the call may
// commit.
func (s *session) passCancelCheck() bool {
	c := &s.cancel
	if c.aborted {
		return false
	}
	c.committing = true
	return true
}

// endCall forgets the running call.
func (s *session) endCall() {
	c := &s.cancel
	if c.stop != nil {
		c.stop()
	}
	c.running, c.committing, c.aborted, c.stop = "", false, false, nil
}

// aborted is the outcome of a call cancelled before its commit: nothing
// changed and nothing was published.
func (s *session) abortedOutcome(tool string) ToolOutcome {
	return s.fail(CodeAborted, tool+" was cancelled before it committed; nothing was published",
		map[string]any{"name": AbortErrorName}, true)
}

// stagedTools are the tools whose activity writes a record others can read
// by id (the batch, the evidence bundle): it is written staged and
// published only by the commit.
var stagedTools = map[string]bool{ToolRun: true, ToolSave: true}

// ActivityPublish publishes what a call staged (models/flylab staging.go).
const ActivityPublish = "flylab.PublishStaged"

// PublishRequest names the call whose staged records to publish.
type PublishRequest struct {
	SessionID    string `json:"session_id"`
	OperationKey string `json:"operation_key"`
}

// publishOptions retry the one-statement publish for about a minute: the
// call has passed its cancel check, and a call that cannot publish answers
// a retryable failure without committing.
var publishOptions = workflow.LocalActivityOptions{
	StartToCloseTimeout: 10 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2,
		MaximumInterval: 5 * time.Second, MaximumAttempts: 15},
}

// publish makes the call's staged batch or bundle readable, before the
// session applies the call's patch.
func (s *session) publish(ctx workflow.Context, call ToolCall) error {
	lctx := workflow.WithLocalActivityOptions(ctx, publishOptions)
	return workflow.ExecuteLocalActivity(lctx, ActivityPublish,
		PublishRequest{SessionID: call.SessionID, OperationKey: call.OperationKey}).Get(ctx, nil)
}
