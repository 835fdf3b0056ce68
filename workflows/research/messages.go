package research

import (
	"time"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// TransitionRequest is the argument of TransitionUpdate.
type TransitionRequest struct {
	Transition string         `json:"transition"`
	Evidence   map[string]any `json:"evidence,omitempty"`
}

// TransitionResult answers TransitionUpdate.
type TransitionResult struct {
	Transition string              `json:"transition"`
	From       gates.Status        `json:"from"`
	Status     gates.Status        `json:"status"`
	Attempt    int                 `json:"attempt_index"`
	Decision   gateengine.Decision `json:"workflow"`
}

// ReviewRequested is the payload of ReviewRequestedSignal.
type ReviewRequested struct {
	Kind          string    `json:"kind"`
	RequestID     string    `json:"request_id"`
	Role          string    `json:"role"`
	ExpiresAt     time.Time `json:"expires_at"`
	SnapshotToken string    `json:"snapshot_token"`
}

// ReviewStarted is the payload of ReviewStartedSignal.
type ReviewStarted struct {
	Kind      string `json:"kind"`
	RequestID string `json:"request_id"`
}

// ReviewVerdict is the payload of ReviewVerdictSignal.
type ReviewVerdict struct {
	Kind      string `json:"kind"`
	RequestID string `json:"request_id"`
	Verdict   string `json:"verdict"`
	ReturnTo  string `json:"return_to,omitempty"`
	Synopsis  string `json:"synopsis"`
	Notes     string `json:"notes,omitempty"`
	// Findings and Evidence are review.submit's optional findings and evidence.
	Findings []any          `json:"findings,omitempty"`
	Evidence map[string]any `json:"evidence,omitempty"`
}

// DependencySettled is the payload of DependencySettledSignal.
type DependencySettled struct {
	ExperimentID string       `json:"experiment_id"`
	Status       gates.Status `json:"status"`
}

// SandboxActivity is the payload of SandboxActivitySignal.
type SandboxActivity struct {
	SandboxUID string `json:"sandbox_uid"`
	Running    bool   `json:"running"`
	// Ended says how a stopped sandbox ended (its SandboxState.EndReason:
	// expired, provisioning_failed, released; or reaped, lost); empty
	// while it runs, for a detach, and in every report sent before the
	// field. Anything but released is an abnormal end (retry_running).
	Ended string `json:"ended,omitempty"`
}

// ExperimentRecord is what RecordExperimentActivity mirrors into the database.
type ExperimentRecord struct {
	ProjectID    string       `json:"project_id"`
	ExperimentID string       `json:"experiment_id"`
	Status       gates.Status `json:"status"`
	Gate         string       `json:"current_gate"`
	NextAction   string       `json:"next_action"`
	Attempt      int          `json:"attempt_index"`
	Revision     int          `json:"revision"`
	Conclusion   string       `json:"conclusion,omitempty"`
}
