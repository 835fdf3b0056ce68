// Package flywheel holds the rollout workflow: one workflow per rollout
// (ID "rollout/<rollout_id>"), the authority for its lifecycle. Lease
// grants and heartbeats arrive as signals; lease expiry and the deadline
// are durable timers; database writes go through activities named here.
package flywheel

import "time"

// Names registered with the worker and used by the API.
const (
	// RolloutWorkflow is the workflow's registered name.
	RolloutWorkflow = "flywheel.Rollout"
	// IDPrefix starts every rollout workflow ID.
	IDPrefix = "rollout/"
	// LeaseSignal carries a lease grant or a heartbeat (LeaseUpdate).
	LeaseSignal = "lease"
	// OutputSignal says the output was accepted (OutputNotice).
	OutputSignal = "output"
	// CancelSignal is an operator's cancellation (CancelRequest).
	CancelSignal = "cancel"
	// StatusQuery answers the workflow's view (Status).
	StatusQuery = "status"
	// ExpireLeaseActivity revokes a lapsed lease (ExpireLeaseInput).
	ExpireLeaseActivity = "flywheel.ExpireLease"
	// FinalizeActivity records the terminal state (FinalizeInput).
	FinalizeActivity = "flywheel.Finalize"
	// DefaultMaxSignalsPerRun is when a run continues as new on its own
	// count: well under Temporal's hard limit of 10,000 signals per run.
	DefaultMaxSignalsPerRun = 2000
)

// Exclusion reasons the workflow decides (contract Exclusion.reason).
const (
	ExclusionDeadline  = "deadline_exceeded"
	ExclusionCapacity  = "capacity"
	ExclusionCancelled = "cancelled"
)

// Expiry outcomes, as returned by ExpireLeaseActivity.
const (
	ExpiryExtended  = "extended"
	ExpiryRequeued  = "requeued"
	ExpiryExhausted = "exhausted"
	ExpiryOutput    = "output"
	ExpiryStale     = "stale"
)

// Terminal statuses.
const (
	StatusCompleted = "completed"
	StatusExcluded  = "excluded"
)

// WorkflowID is the workflow ID of a rollout.
func WorkflowID(rolloutID string) string { return IDPrefix + rolloutID }

// RolloutInput starts (or continues) a rollout workflow.
type RolloutInput struct {
	RolloutID  string    `json:"rollout_id"`
	DeadlineAt time.Time `json:"deadline_at"`
	// MaxSignalsPerRun overrides DefaultMaxSignalsPerRun (tests).
	MaxSignalsPerRun int `json:"max_signals_per_run,omitempty"`
	// Carry is the state handed over by continue-as-new.
	Carry *Carry `json:"carry,omitempty"`
	// FinalizeLocally makes the terminal record a local activity, run by
	// the worker that holds the workflow task, inside that task. As a
	// regular activity it cost a round trip through matching, three more
	// history writes and a second workflow task per rollout: the largest
	// part of Temporal's work per output. Rollouts enqueued before it
	// (false) end as they always did. A field of the input rather than a
	// workflow.GetVersion, whose search attribute upsert would add a
	// visibility write to every rollout.
	FinalizeLocally bool `json:"finalize_locally,omitempty"`
	// QuietVisibility keeps the rollout's visibility record to what its
	// start and its close write: the workflow upserts no search attribute
	// (not at its start, on a grant or a re-queue, nor at its end). Each
	// upsert is a visibility write on the Temporal cluster, and a grant's
	// came due while the agents that claimed together were heartbeating
	// together (BenchmarkProductionTopology_FlywheelPaced). The lease state
	// lives in the database, which the console lists; the Temporal UI finds
	// a rollout by GatehouseKind and ExecutionStatus. Rollouts enqueued
	// before it (false) keep their GatehouseGate up to date.
	QuietVisibility bool `json:"quiet_visibility,omitempty"`
}

// Carry is the lease state a continued run starts from.
type Carry struct {
	Leased         bool      `json:"leased"`
	Epoch          int64     `json:"epoch"`
	LeaseExpiresAt time.Time `json:"lease_expires_at"`
	Heartbeats     int64     `json:"heartbeats"`
	Runs           int       `json:"runs"`
}

// LeaseUpdate is a grant (a new epoch) or a heartbeat (same epoch, later
// expiry) already recorded in the database by the API.
type LeaseUpdate struct {
	Epoch     int64     `json:"epoch"`
	ExpiresAt time.Time `json:"expires_at"`
}

// OutputNotice says the output of lease Epoch was accepted.
type OutputNotice struct {
	Epoch int64 `json:"epoch"`
}

// CancelRequest is an operator's cancellation.
type CancelRequest struct {
	Detail string `json:"detail"`
}

// ExpireLeaseInput asks the database to revoke lease Epoch if it lapsed.
type ExpireLeaseInput struct {
	RolloutID  string `json:"rollout_id"`
	Epoch      int64  `json:"epoch"`
	Heartbeats int64  `json:"heartbeats"`
}

// ExpireLeaseResult is what the database found: one of the Expiry* values
// and, for extended, the expiry a heartbeat set.
type ExpireLeaseResult struct {
	Outcome   string    `json:"outcome"`
	ExpiresAt time.Time `json:"expires_at"`
}

// FinalizeInput records a terminal decision.
type FinalizeInput struct {
	RolloutID  string `json:"rollout_id"`
	Status     string `json:"status"`
	Reason     string `json:"reason,omitempty"`
	Detail     string `json:"detail,omitempty"`
	Heartbeats int64  `json:"heartbeats"`
}

// FinalizeResult is the terminal state as stored.
type FinalizeResult struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// Status is the workflow's view, for StatusQuery and the result.
type Status struct {
	Gate           string    `json:"gate"`
	Epoch          int64     `json:"epoch"`
	LeaseExpiresAt time.Time `json:"lease_expires_at"`
	Heartbeats     int64     `json:"heartbeats"`
	SignalsThisRun int       `json:"signals_this_run"`
	Runs           int       `json:"runs"`
	Exclusion      string    `json:"exclusion,omitempty"`
}
