package research

import (
	"time"

	"github.com/gatehouse/gatehouse/internal/sandbox"
)

// Response bodies of the sandbox tools. Fields are declared in the
// alphabetical order of their JSON keys, the order the maps they replace
// encoded in, so the bytes are unchanged.

// sandboxViewResp is a sandbox as tools show it (sandboxView). The SSH
// endpoint fields are present once the sandbox has a port; ssh_command
// only while it is active; requested only in sandbox.request's answer.
type sandboxViewResp struct {
	Active         bool       `json:"active"`
	CPU            float64    `json:"cpu"`
	CreatedAt      time.Time  `json:"created_at"`
	EndedAt        *time.Time `json:"ended_at"`
	ExperimentID   string     `json:"experiment_id"`
	ExpiresAt      time.Time  `json:"expires_at"`
	GPU            int        `json:"gpu"`
	InstanceType   string     `json:"instance_type"`
	KeyFingerprint string     `json:"key_fingerprint"`
	LastError      string     `json:"last_error,omitempty"`
	MemoryMB       int        `json:"memory_mb"`
	ProjectID      string     `json:"project_id"`
	Provider       string     `json:"provider"`
	Region         string     `json:"region"`
	Requested      bool       `json:"requested,omitempty"`
	SandboxID      string     `json:"sandbox_id"`
	SandboxUID     string     `json:"sandbox_uid"`
	SSHCommand     string     `json:"ssh_command,omitempty"`
	SSHHost        *string    `json:"ssh_host,omitempty"`
	SSHPort        *int       `json:"ssh_port,omitempty"`
	SSHUser        *string    `json:"ssh_user,omitempty"`
	Status         string     `json:"status"`
	Workdir        *string    `json:"workdir,omitempty"`
	WorkflowID     string     `json:"workflow_id"`
}

// sandboxOneResp answers sandbox.get.
type sandboxOneResp struct {
	Sandbox sandboxViewResp `json:"sandbox"`
}

// sandboxListResp answers sandbox.list.
type sandboxListResp struct {
	Count     int               `json:"count"`
	Sandboxes []sandboxViewResp `json:"sandboxes"`
}

// sandboxAttachResp answers sandbox.attach.
type sandboxAttachResp struct {
	Attached bool            `json:"attached"`
	Sandbox  sandboxViewResp `json:"sandbox"`
}

// sandboxExtendResp answers sandbox.extend.
type sandboxExtendResp struct {
	AddedSeconds int       `json:"added_seconds"`
	ExpiresAt    time.Time `json:"expires_at"`
	Extended     bool      `json:"extended"`
	SandboxUID   string    `json:"sandbox_uid"`
	Status       string    `json:"status"`
}

// sandboxOptionsResp answers sandbox.options.
type sandboxOptionsResp struct {
	Count           int                    `json:"count"`
	DefaultProvider string                 `json:"default_provider"`
	InstanceTypes   []sandbox.InstanceType `json:"instance_types"`
	Limits          sandboxLimitsResp      `json:"limits"`
	Providers       []string               `json:"providers"`
}

// sandboxLimitsResp are the bounds sandbox.options shows.
type sandboxLimitsResp struct {
	ExtendMaxSeconds   int                  `json:"extend_max_seconds"`
	GPUsMax            int                  `json:"gpus_max"`
	LifetimeMaxSeconds int                  `json:"lifetime_max_seconds"`
	LiveSandboxesMax   int                  `json:"live_sandboxes_max"`
	TimeLimitSeconds   sandboxTimeLimitResp `json:"time_limit_seconds"`
}

// sandboxTimeLimitResp is sandbox.request's time_limit: default and bounds.
type sandboxTimeLimitResp struct {
	Default int `json:"default"`
	Max     int `json:"max"`
	Min     int `json:"min"`
}

// sandboxHealthRow is one provider's health in sandbox.health.
type sandboxHealthRow struct {
	Error    *string `json:"error,omitempty"`
	Healthy  bool    `json:"healthy"`
	Provider string  `json:"provider"`
}

// sandboxHealthResp answers sandbox.health.
type sandboxHealthResp struct {
	Providers []sandboxHealthRow `json:"providers"`
}

// sandboxRunResp is one run in sandbox.runs, its output cut to a tail.
type sandboxRunResp struct {
	Command         string     `json:"command"`
	EndedAt         *time.Time `json:"ended_at"`
	ExitCode        *int       `json:"exit_code"`
	Output          string     `json:"output"`
	OutputTruncated bool       `json:"output_truncated"`
	Seq             int        `json:"seq"`
	StartedAt       time.Time  `json:"started_at"`
	Status          string     `json:"status"`
}

// sandboxTerminalResp answers sandbox.terminal (lines is null when no
// command ran).
type sandboxTerminalResp struct {
	AsOf       time.Time `json:"as_of"`
	Lines      []string  `json:"lines"`
	SandboxUID string    `json:"sandbox_uid"`
	Text       string    `json:"text"`
	Truncated  bool      `json:"truncated"`
}

// sandboxPulledResp is one pulled path of sandbox.pull_outputs.
type sandboxPulledResp struct {
	ExperimentID string `json:"experiment_id"`
	Name         string `json:"name"`
	ObjectID     string `json:"object_id"`
	Path         string `json:"path"`
	SHA256       string `json:"sha256"`
	SizeBytes    int64  `json:"size_bytes"`
	Status       string `json:"status"`
	Version      int    `json:"version"`
}

// sandboxPullResp answers sandbox.pull_outputs.
type sandboxPullResp struct {
	Count      int                 `json:"count"`
	Outputs    []sandboxPulledResp `json:"outputs"`
	SandboxUID string              `json:"sandbox_uid"`
}

// sandboxReleasePendingResp answers sandbox.release before anything is
// destroyed: nothing active ([] pending, no hint), or the retention
// checklist of each target.
type sandboxReleasePendingResp struct {
	Hint           string                   `json:"hint,omitempty"`
	PendingRelease []retentionChecklistResp `json:"pending_release"`
	Released       bool                     `json:"released"`
	Status         string                   `json:"status"`
}

// sandboxReleasedResp answers a confirmed sandbox.release.
type sandboxReleasedResp struct {
	Released  bool              `json:"released"`
	Sandboxes []sandboxViewResp `json:"sandboxes"`
	Status    string            `json:"status"`
}

// sandboxBlockResp is status_and_next's sandbox block: only active:false
// without an active sandbox, else the endpoint too.
type sandboxBlockResp struct {
	Active bool `json:"active"`
	*sandboxEndpointResp
}

// sandboxEndpointResp is the active sandbox of a sandboxBlockResp.
type sandboxEndpointResp struct {
	ExpiresAt  time.Time `json:"expires_at"`
	SandboxUID string    `json:"sandbox_uid"`
	SSHHost    string    `json:"ssh_host"`
	SSHPort    int       `json:"ssh_port"`
	SSHUser    string    `json:"ssh_user"`
	Status     string    `json:"status"`
	Workdir    string    `json:"workdir"`
}

// retentionChecklistResp is what releasing one sandbox would lose or
// leave behind (retentionChecklist). When the pulls could not be read it
// holds only error; the three lists are there otherwise ([] when empty),
// with a note of what could not be checked.
type retentionChecklistResp struct {
	Error                    *string               `json:"error,omitempty"`
	ExpiresAt                time.Time             `json:"expires_at"`
	OutputsUnchecked         *string               `json:"outputs_unchecked,omitempty"`
	RunningCommands          *[]runningCommandResp `json:"running_commands,omitempty"`
	RunningCommandsUnchecked *string               `json:"running_commands_unchecked,omitempty"`
	SandboxID                string                `json:"sandbox_id"`
	SandboxUID               string                `json:"sandbox_uid"`
	Status                   string                `json:"status"`
	UnpinnedStorage          *[]unpinnedObjectResp `json:"unpinned_storage,omitempty"`
	UnpulledOutputs          *[]unpulledOutputResp `json:"unpulled_outputs,omitempty"`
	Workdir                  string                `json:"workdir"`
}

// runningCommandResp is a command of the checklist still running.
type runningCommandResp struct {
	Command   string    `json:"command"`
	Seq       int       `json:"seq"`
	StartedAt time.Time `json:"started_at"`
}

// unpinnedObjectResp is a pulled storage object of the checklist that is
// not pinned.
type unpinnedObjectResp struct {
	ExpiresAt *time.Time `json:"expires_at"`
	Name      string     `json:"name"`
	ObjectID  string     `json:"object_id"`
	Path      string     `json:"path"`
}

// unpulledOutputResp is an output of the checklist not pulled in its
// current form: its size, or a note of why it could not be hashed.
type unpulledOutputResp struct {
	Note      string `json:"note,omitempty"`
	Path      string `json:"path"`
	SizeBytes *int64 `json:"size_bytes,omitempty"`
}

// sandboxRunsResp answers sandbox.runs.
type sandboxRunsResp struct {
	Count         int              `json:"count"`
	Running       int              `json:"running"`
	Runs          []sandboxRunResp `json:"runs"`
	SandboxStatus string           `json:"sandbox_status"`
	SandboxUID    string           `json:"sandbox_uid"`
	WaitedSeconds int              `json:"waited_seconds"`
}
