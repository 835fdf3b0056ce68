package research

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
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

// Sandbox inspection operations.
const (
	InspectRuns  = "runs"
	InspectFiles = "files"
	InspectRead  = "read"
	// InspectDigest answers a file's sha256 and size without moving it.
	InspectDigest = "digest"
)

// Error types an inspection answers with; none is retried.
const (
	InspectErrPathOutside = "path_outside"
	InspectErrNotFound    = "not_found"
	InspectErrTooLarge    = "too_large"
	InspectErrBadRequest  = "bad_request"
)

// SandboxInspectRequest asks the host holding a local sandbox for its runs
// (waiting up to Wait while any runs), its file list, one chunk of a file,
// or a file's digest.
type SandboxInspectRequest struct {
	HostQueue string
	UID       string
	Op        string
	// Wait is the runs long poll (0: answer at once).
	Wait time.Duration `json:",omitempty"`
	// OutputTail and OutputTotal bound run outputs (see sandbox.TrimRuns).
	OutputTail  int `json:",omitempty"`
	OutputTotal int `json:",omitempty"`
	// MaxFiles bounds the file list.
	MaxFiles int `json:",omitempty"`
	// Path, Offset and Length name the chunk to read.
	Path   string `json:",omitempty"`
	Offset int64  `json:",omitempty"`
	Length int    `json:",omitempty"`
	// MaxBytes bounds the file a digest reads.
	MaxBytes int64 `json:",omitempty"`
}

// SandboxInspectRun is one run as an inspection carries it.
type SandboxInspectRun struct {
	Seq       int
	Command   string
	Status    string
	StartedAt time.Time
	EndedAt   *time.Time `json:",omitempty"`
	ExitCode  *int       `json:",omitempty"`
	Output    string
	Truncated bool `json:",omitempty"`
}

// SandboxInspectResult is what the holding host answered.
type SandboxInspectResult struct {
	Runs  []SandboxInspectRun `json:",omitempty"`
	Files []string            `json:",omitempty"`
	Data  []byte              `json:",omitempty"`
	// Size is the whole file's size (reads and digests).
	Size int64 `json:",omitempty"`
	// SHA256 is a digest's hex sha256.
	SHA256 string `json:",omitempty"`
}

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
