package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
)

// TestSession_AnalysisActivityHasHeartbeatTimeout proves that a new
// session schedules the analysis with a heartbeat timeout, so a worker
// killed mid-analysis is noticed in seconds, not after the one-minute
// start-to-close timeout.
func TestSession_AnalysisActivityHasHeartbeatTimeout(t *testing.T) {
	env := newEnv(t)
	var got time.Duration
	env.RegisterActivityWithOptions(func(ctx context.Context, c ToolCall) (ToolEffect, error) {
		got = activity.GetInfo(ctx).HeartbeatTimeout
		return ToolEffect{CreatedArtifactIDs: []string{"an_1"}, Patch: Patch{Analysis: &AnalysisRef{ID: "an_1", BatchID: "b_1"}}}, nil
	}, activity.RegisterOptions{Name: ActivityAnalyze})
	st := SessionState{SessionID: "session_a", Revision: 6, Batch: &BatchRef{ID: "b_1", ExperimentID: "exp_1"}}
	var out ToolOutcome
	var err error
	env.RegisterDelayedCallback(func() {
		callTool(env, "u1", ToolRequest{Tool: ToolAnalyze, ExpectedRevision: 6,
			Args: json.RawMessage(`{"batch_id":"b_1","metrics":["backward_distance_mm"]}`)}, &out, &err)
	}, time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(Session, SessionInput{State: st})
	if err != nil || out.Failure != nil || out.Revision != 7 {
		t.Fatalf("analysis: err=%v outcome=%+v", err, out)
	}
	if got != activityHeartbeatTimeout {
		t.Fatalf("analysis activity heartbeat timeout %s, want %s", got, activityHeartbeatTimeout)
	}
}

// TestSession_MutationInProgressIsRetryableStaleState proves that a call
// racing an in-flight mutation is refused as STALE_STATE marked retryable,
// with the contract's details, while a stale revision stays non-retryable.
func TestSession_MutationInProgressIsRetryableStaleState(t *testing.T) {
	for _, tc := range []struct {
		name      string
		s         session
		retryable bool
	}{
		{"mutation in flight", session{inFlight: "rev-3/analyze_fly_behavior",
			state: SessionState{SessionID: "session_a", Revision: 3, Running: ToolAnalyze}}, true},
		{"stale revision", session{state: SessionState{SessionID: "session_a", Revision: 4}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.validateTool(nil, ToolRequest{Tool: ToolCompare, ExpectedRevision: 3, Args: json.RawMessage(`{}`)})
			f := failureOf(t, err)
			if f.Code != CodeStaleState || f.Retryable != tc.retryable || f.Message == "" || f.Details == nil {
				t.Fatalf("failure %+v, want STALE_STATE retryable=%v", f, tc.retryable)
			}
			if tc.retryable && f.Details["running"] != ToolAnalyze {
				t.Fatalf("details %v must name the running tool", f.Details)
			}
		})
	}
}

// failureOf decodes the ToolFailure a validator error carries, through the
// data converter as the API receives it.
func failureOf(t *testing.T, err error) ToolFailure {
	t.Helper()
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || !appErr.NonRetryable() {
		t.Fatalf("want a non-retryable application error, got %v", err)
	}
	var f ToolFailure
	if err := appErr.Details(&f); err != nil {
		t.Fatal(err)
	}
	// Round-trip through the default converter as the update result does.
	p, err := converter.GetDefaultDataConverter().ToPayload(f)
	if err != nil {
		t.Fatal(err)
	}
	var back ToolFailure
	if err := converter.GetDefaultDataConverter().FromPayload(p, &back); err != nil {
		t.Fatal(err)
	}
	return back
}
