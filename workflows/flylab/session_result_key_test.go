package flylab

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
)

// TestSession_ACallThatDidNotCommitNeverAnswersTheNext performs what a
// cancelled (or lost) call leaves behind: its activity ran and stored a
// result, but the call did not commit. The next call of the same tool at
// the same revision, with other arguments, must be given a result key of
// its own; with a shared key the stored result of the call that never
// committed would be what the api answers it with.
func TestSession_ACallThatDidNotCommitNeverAnswersTheNext(t *testing.T) {
	env := newEnv(t)
	env.SetTestTimeout(30 * time.Second)
	var mu sync.Mutex
	keys := map[string]string{} // the call's argument → the result key its activity was given
	env.RegisterActivityWithOptions(func(ctx context.Context, c ToolCall) (ToolEffect, error) {
		var args struct {
			Which string `json:"which"`
		}
		_ = json.Unmarshal(c.Args, &args)
		mu.Lock()
		keys[args.Which] = c.ResultKey
		mu.Unlock()
		if args.Which == "cancelled" {
			time.Sleep(300 * time.Millisecond) // stores its result whatever the caller does
		}
		return ToolEffect{Patch: Patch{Analysis: &AnalysisRef{ID: "analysis_" + args.Which}}}, nil
	}, activity.RegisterOptions{Name: ActivityAnalyze})
	call := func(which, callID string) ToolRequest {
		return ToolRequest{Tool: ToolAnalyze, ExpectedRevision: 6, CallID: callID,
			Args: json.RawMessage(`{"which":"` + which + `"}`)}
	}
	var first, second ToolOutcome
	var err1, err2 error
	env.RegisterDelayedCallback(func() { callTool(env, "update-1", call("cancelled", "cred/mcp/1"), &first, &err1) }, time.Millisecond)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(CancelSignal, CancelRequest{CallID: "cred/mcp/1"}) }, 50*time.Millisecond)
	env.RegisterDelayedCallback(func() { callTool(env, "update-2", call("committed", "cred/mcp/2"), &second, &err2) }, 2*time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(Session, approvedSession())
	if err1 != nil || first.Failure == nil || first.Failure.Code != CodeAborted {
		t.Fatalf("first call: %+v (%v), want ABORTED", first.Failure, err1)
	}
	if err2 != nil || second.Failure != nil || second.Revision != 7 {
		t.Fatalf("second call: %+v (%v), want a commit at revision 7", second, err2)
	}
	if keys["cancelled"] == "" || keys["cancelled"] == keys["committed"] {
		t.Fatalf("both calls were given result key %q: the aborted call's stored result would answer the next", keys["committed"])
	}
	if second.ResultKey != keys["committed"] || second.ResultKey != "session_c/analyze_fly_behavior/rev-7/update-2" {
		t.Fatalf("the commit answers from %q, its activity stored %q", second.ResultKey, keys["committed"])
	}
}

// TestUpdateTag_KeepsAShortIDAndDigestsALongOne proves a result key stays
// within its column whatever Update ID a caller chose, and two long IDs
// still give two keys.
func TestUpdateTag_KeepsAShortIDAndDigestsALongOne(t *testing.T) {
	if got := updateTag("tool/0123456789abcdef01234567"); got != "tool/0123456789abcdef01234567" {
		t.Fatalf("short id tagged %q", got)
	}
	long1, long2 := updateTag(strings.Repeat("a", 200)), updateTag(strings.Repeat("a", 199)+"b")
	if len(long1) > maxUpdateTag || len(long2) > maxUpdateTag || long1 == long2 {
		t.Fatalf("long ids tagged %q and %q", long1, long2)
	}
}
