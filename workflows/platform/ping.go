package platform

import (
	"errors"
	"time"

	"go.temporal.io/sdk/workflow"
)

const (
	// PingWorkflow is the registered name of the ping workflow.
	PingWorkflow = "platform.Ping"
	// PongSignal answers a waiting ping.
	PongSignal = "pong"
	// PingIDPrefix starts every ping workflow ID.
	PingIDPrefix = "ping/"
	// DefaultPingWait bounds how long a ping waits for its pong.
	DefaultPingWait = 10 * time.Minute
)

// PingInput starts a ping.
type PingInput struct {
	// Message is echoed back in the result.
	Message string `json:"message"`
	// Wait bounds the wait for the pong signal; zero means DefaultPingWait.
	Wait time.Duration `json:"wait"`
}

// Pong is the signal payload.
type Pong struct {
	// Reply is returned in the result.
	Reply string `json:"reply"`
}

// PingResult is what a ping returns once its pong arrived.
type PingResult struct {
	Message string `json:"message"`
	Reply   string `json:"reply"`
}

// ErrPingTimedOut is returned when no pong arrived in time.
var ErrPingTimedOut = errors.New("ping: no pong before the wait ran out")

// Ping waits for one PongSignal and returns it with the message: the
// smallest real gate, a workflow held open by an outside party's signal.
func Ping(ctx workflow.Context, in PingInput) (PingResult, error) {
	if err := workflow.UpsertTypedSearchAttributes(ctx,
		KindKey.ValueSet("ping"), GateKey.ValueSet("awaiting_pong")); err != nil {
		return PingResult{}, err
	}
	wait := in.Wait
	if wait <= 0 {
		wait = DefaultPingWait
	}
	var pong Pong
	var got bool
	ch := workflow.GetSignalChannel(ctx, PongSignal)
	ok, err := workflow.AwaitWithTimeout(ctx, wait, func() bool {
		if !got {
			got = ch.ReceiveAsync(&pong)
		}
		return got
	})
	if err != nil {
		return PingResult{}, err
	}
	if !ok {
		return PingResult{}, ErrPingTimedOut
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, GateKey.ValueSet("done")); err != nil {
		return PingResult{}, err
	}
	return PingResult{Message: in.Message, Reply: pong.Reply}, nil
}
