package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
)

// logHistoryIfFailed logs, once t has failed, the history of workflow
// workflowID one event a line: what a flaky failure needs to be read
// after the stack is gone (which activity retried, which update landed
// when). dial opens the client only then.
func logHistoryIfFailed(t *testing.T, workflowID string, dial func() (client.Client, error)) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		c, err := dial()
		if err != nil {
			t.Logf("history of %s: %v", workflowID, err)
			return
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var b strings.Builder
		it := c.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				fmt.Fprintf(&b, "  (%v)\n", err)
				break
			}
			fmt.Fprintf(&b, "  %3d %s %s%s\n", ev.GetEventId(), ev.GetEventTime().AsTime().Format("15:04:05.000"),
				ev.GetEventType(), eventDetail(ev))
		}
		t.Logf("history of %s:\n%s", workflowID, b.String())
	})
}

// eventDetail names what an event is about: the activity, update or
// signal, the attempt, the worker.
func eventDetail(ev *historypb.HistoryEvent) string {
	switch {
	case ev.GetActivityTaskScheduledEventAttributes() != nil:
		return " " + ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
	case ev.GetActivityTaskStartedEventAttributes() != nil:
		a := ev.GetActivityTaskStartedEventAttributes()
		return fmt.Sprintf(" scheduled=%d attempt=%d by %s", a.GetScheduledEventId(), a.GetAttempt(), a.GetIdentity())
	case ev.GetActivityTaskCompletedEventAttributes() != nil:
		return fmt.Sprintf(" scheduled=%d %s", ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId(),
			ev.GetActivityTaskCompletedEventAttributes().GetResult().String())
	case ev.GetActivityTaskTimedOutEventAttributes() != nil:
		return fmt.Sprintf(" scheduled=%d", ev.GetActivityTaskTimedOutEventAttributes().GetScheduledEventId())
	case ev.GetWorkflowTaskStartedEventAttributes() != nil:
		return " by " + ev.GetWorkflowTaskStartedEventAttributes().GetIdentity()
	case ev.GetWorkflowExecutionUpdateAcceptedEventAttributes() != nil:
		a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes()
		return fmt.Sprintf(" %s %s", a.GetAcceptedRequest().GetInput().GetName(), a.GetProtocolInstanceId())
	case ev.GetWorkflowExecutionUpdateCompletedEventAttributes() != nil:
		return " " + ev.GetWorkflowExecutionUpdateCompletedEventAttributes().GetMeta().GetUpdateId()
	case ev.GetWorkflowExecutionSignaledEventAttributes() != nil:
		return " " + ev.GetWorkflowExecutionSignaledEventAttributes().GetSignalName()
	}
	return ""
}
