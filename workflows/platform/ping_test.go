package platform

import (
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"
)

func TestPing_ReturnsPongReply(t *testing.T) {
	t.Parallel()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(PongSignal, Pong{Reply: "pong!"})
	}, time.Minute)
	env.ExecuteWorkflow(Ping, PingInput{Message: "hello"})
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	var res PingResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Message != "hello" || res.Reply != "pong!" {
		t.Fatalf("unexpected result %+v", res)
	}
}

func TestPing_TimesOutWithoutPong(t *testing.T) {
	t.Parallel()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.ExecuteWorkflow(Ping, PingInput{Message: "hello", Wait: time.Hour})
	err := env.GetWorkflowError()
	if err == nil {
		t.Fatal("want a timeout error")
	}
	if !strings.Contains(err.Error(), ErrPingTimedOut.Error()) {
		t.Fatalf("want %v, got %v", ErrPingTimedOut, err)
	}
}
