package research

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/internal/sandbox/inspect"
)

// Names and bounds of the sandbox inspection workflow.
const (
	// SandboxInspectWorkflowName is the registered workflow type.
	SandboxInspectWorkflowName = "research.SandboxInspect"
	// SandboxInspectIDPrefix starts every inspection workflow ID:
	// sandbox-inspect/<uid>/<call id>.
	SandboxInspectIDPrefix = "sandbox-inspect/"
	// InspectSandboxActivity reads runs or files on the holding host.
	InspectSandboxActivity = "research.InspectSandbox"
	// SandboxInspectPickup bounds how long an inspection waits for the
	// holding host to poll: a reader is waiting on the answer.
	SandboxInspectPickup = 15 * time.Second
	// SandboxInspectHeartbeat is the inspection activity's heartbeat
	// timeout; a long poll heartbeats while it waits.
	SandboxInspectHeartbeat = 10 * time.Second
)

// Sandbox inspection operations (the plain package inspect's names,
// kept here for the workflow's callers).
const (
	InspectRuns  = inspect.OpRuns
	InspectFiles = inspect.OpFiles
	InspectRead  = inspect.OpRead
	// InspectDigest answers a file's sha256 and size without moving it.
	InspectDigest = inspect.OpDigest
)

// Error types an inspection answers with; none is retried.
const (
	InspectErrPathOutside = inspect.ErrPathOutside
	InspectErrNotFound    = inspect.ErrNotFound
	InspectErrTooLarge    = inspect.ErrTooLarge
	InspectErrBadRequest  = inspect.ErrBadRequest
)

// SandboxInspectRequest asks the host holding a local sandbox for its runs
// (waiting up to Wait while any runs), its file list, one chunk of a file,
// or a file's digest. It is inspect.Request, which the sandbox agent
// answers without importing this package.
type SandboxInspectRequest = inspect.Request

// SandboxInspectRun is one run as an inspection carries it.
type SandboxInspectRun = inspect.Run

// SandboxInspectResult is what the holding host answered.
type SandboxInspectResult = inspect.Result

// SandboxInspectWorkflowID is the ID of one inspection of sandbox uid.
func SandboxInspectWorkflowID(uid, callID string) string {
	return SandboxInspectIDPrefix + uid + "/" + callID
}

// SandboxInspect reads what happened inside a local sandbox on the host
// that holds it, for an API process on another host. It only reads, so
// an inspection is safe to repeat; its one activity goes to the request's
// host queue and fails fast when that host does not poll.
func SandboxInspect(ctx workflow.Context, in SandboxInspectRequest) (SandboxInspectResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              in.HostQueue,
		ScheduleToStartTimeout: SandboxInspectPickup,
		StartToCloseTimeout:    in.Wait + time.Minute,
		HeartbeatTimeout:       SandboxInspectHeartbeat,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3,
			NonRetryableErrorTypes: []string{InspectErrPathOutside, InspectErrNotFound, InspectErrTooLarge, InspectErrBadRequest}},
	})
	var out SandboxInspectResult
	err := workflow.ExecuteActivity(ctx, InspectSandboxActivity, in).Get(ctx, &out)
	return out, err
}
