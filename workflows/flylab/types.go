package flylab

import "encoding/json"

// ToolRequest is one mutating tool call sent as an Update. InputHash is the
// hash of the logical input (arguments minus expected_state_revision and
// operation_id), computed by the API.
type ToolRequest struct {
	Tool             string          `json:"tool"`
	Args             json.RawMessage `json:"args"`
	ExpectedRevision int             `json:"expected_revision"`
	OperationID      string          `json:"operation_id,omitempty"`
	InputHash        string          `json:"input_hash"`
	// CallID names the caller's call (its credential and MCP request id,
	// or one HTTP request), so a CancelSignal can name it.
	CallID string `json:"call_id,omitempty"`
}

// ToolFailure is a contract error: code, message, retryable, details.
type ToolFailure struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Retryable bool           `json:"retryable"`
	Details   map[string]any `json:"details"`
}

// ToolOutcome is what the tool Update returns: either a committed change
// (new revision, created ids and the key of the stored result data) or a
// failure that changed nothing.
type ToolOutcome struct {
	PreviousRevision   int          `json:"previous_revision"`
	Revision           int          `json:"revision"`
	CreatedArtifactIDs []string     `json:"created_artifact_ids"`
	ResultKey          string       `json:"result_key"`
	Replay             bool         `json:"replay"`
	Failure            *ToolFailure `json:"failure,omitempty"`
	State              SessionState `json:"state"`
	// Stored says the state this outcome carries is stored as the
	// session's snapshot, so reads may answer from the database; false
	// from workers that predate it.
	Stored bool `json:"stored,omitempty"`
}

// ToolCall is the input of every tool activity.
type ToolCall struct {
	SessionID    string          `json:"session_id"`
	Tool         string          `json:"tool"`
	Args         json.RawMessage `json:"args"`
	ResultKey    string          `json:"result_key"`
	OperationKey string          `json:"operation_key"`
	Session      SessionState    `json:"session"`
	// Stage asks the activity to write its batch or bundle staged, for the
	// commit to publish (session_cancel.go); false in older histories.
	Stage bool `json:"stage,omitempty"`
	// DeferResult asks the activity to compute its result without storing
	// it: the commit's snapshot stores it, in the same transaction
	// (session_commit.go); false in older histories.
	DeferResult bool `json:"defer_result,omitempty"`
}

// ToolEffect is what a tool activity returns: a domain failure, or the ids
// it created and the lineage patch the session applies.
type ToolEffect struct {
	Failure            *ToolFailure `json:"failure,omitempty"`
	CreatedArtifactIDs []string     `json:"created_artifact_ids"`
	Patch              Patch        `json:"patch"`
}

// Patch is the lineage change of one committed tool call.
type Patch struct {
	Discovery  *DiscoveryRef  `json:"discovery,omitempty"`
	Hypothesis *HypothesisRef `json:"hypothesis,omitempty"`
	Experiment *ExperimentRef `json:"experiment,omitempty"`
	Batch      *BatchRef      `json:"batch,omitempty"`
	Analysis   *AnalysisRef   `json:"analysis,omitempty"`
	Comparison *ComparisonRef `json:"comparison,omitempty"`
	Bundle     *BundleRef     `json:"bundle,omitempty"`
}

// DiscoveryRef is the session's latest discovery decision.
type DiscoveryRef struct {
	ID                string              `json:"id"`
	Goal              string              `json:"goal"`
	SelectedCircuitID string              `json:"selected_circuit_id"`
	EvidenceIDs       []string            `json:"evidence_ids"`
	EligibleIDs       []string            `json:"eligible_ids"`
	Causal            map[string][]string `json:"causal"`
	ResultKey         string              `json:"result_key"`
}

// HypothesisRef is a drafted hypothesis.
type HypothesisRef struct {
	ID             string   `json:"id"`
	CircuitID      string   `json:"circuit_id"`
	Behavior       string   `json:"behavior"`
	Perturbation   string   `json:"perturbation"`
	PrimaryOutcome string   `json:"primary_outcome"`
	Direction      string   `json:"direction"`
	EvidenceIDs    []string `json:"evidence_ids"`
}

// Experiment statuses as the session mirrors them (the experiment workflow
// is the authority).
const (
	ExperimentAwaiting = "awaiting_approval"
	ExperimentApproved = "approved"
	ExperimentRejected = "rejected"
	ExperimentRevoked  = "revoked"
	ExperimentRan      = "ran"
)

// ExperimentRef is the session's current experiment and its gate.
// DesignKey is the content id of the design request: an identical repeat
// of an open design keeps the experiment, while a repeat of a design that
// ran, was revoked or was rejected is a new experiment with its own id.
// ExpiresAt is when the open gate (or the unused approval) lapses.
type ExperimentRef struct {
	ID                 string   `json:"id"`
	DesignKey          string   `json:"design_key,omitempty"`
	ExpiresAt          string   `json:"expires_at,omitempty"`
	HypothesisID       string   `json:"hypothesis_id"`
	CircuitID          string   `json:"circuit_id"`
	ProtocolHash       string   `json:"protocol_hash"`
	SeedManifestHash   string   `json:"seed_manifest_hash"`
	Status             string   `json:"status"`
	ApprovedAt         string   `json:"approved_at,omitempty"`
	Reason             string   `json:"reason,omitempty"`
	RecommendedMetrics []string `json:"recommended_metrics"`
}

// BatchRef is the committed batch of the current experiment.
type BatchRef struct {
	ID             string `json:"id"`
	ExperimentID   string `json:"experiment_id"`
	RunContentHash string `json:"run_content_hash"`
}

// AnalysisRef is a saved analysis.
type AnalysisRef struct {
	ID      string `json:"id"`
	BatchID string `json:"batch_id"`
}

// ComparisonRef is the saved comparison.
type ComparisonRef struct {
	ID          string   `json:"id"`
	AnalysisIDs []string `json:"analysis_ids"`
}

// BundleRef is the saved evidence bundle.
type BundleRef struct {
	ID           string `json:"id"`
	ManifestHash string `json:"manifest_hash"`
	// Labels are the bundle's own provenance (derived from its payload);
	// absent for bundles saved before they were derived.
	Labels []string `json:"labels,omitempty"`
}

// OperationRecord is a committed operation_id call kept for replay.
type OperationRecord struct {
	Tool      string      `json:"tool"`
	InputHash string      `json:"input_hash"`
	Outcome   ToolOutcome `json:"outcome"`
}

// SessionState is the page session's lineage; the session workflow owns it.
type SessionState struct {
	SessionID  string         `json:"session_id"`
	Owner      string         `json:"owner"`
	Revision   int            `json:"revision"`
	Discovery  *DiscoveryRef  `json:"discovery,omitempty"`
	Hypothesis *HypothesisRef `json:"hypothesis,omitempty"`
	Experiment *ExperimentRef `json:"experiment,omitempty"`
	Batch      *BatchRef      `json:"batch,omitempty"`
	Analyses   []AnalysisRef  `json:"analyses,omitempty"`
	// AnalysisHistory is every analysis the session saved, of any batch:
	// compare_fly_trials may rank any of them together (an original
	// against its follow-up), while Analyses is the current lineage's.
	AnalysisHistory []AnalysisRef              `json:"analysis_history,omitempty"`
	Comparison      *ComparisonRef             `json:"comparison,omitempty"`
	Bundle          *BundleRef                 `json:"bundle,omitempty"`
	Running         string                     `json:"running,omitempty"`
	RanIDs          []string                   `json:"ran_experiment_ids,omitempty"`
	Operations      map[string]OperationRecord `json:"operations,omitempty"`
}

// StateSnapshot is the input of the SaveSession local activity: the
// committed state at Revision, encoded once in the workflow so the activity
// never reads state the workflow goes on changing.
type StateSnapshot struct {
	SessionID string          `json:"session_id"`
	Revision  int             `json:"revision"`
	State     json.RawMessage `json:"state"`
	// Result, when set, is the committed call's result, stored with the
	// snapshot in one transaction.
	Result *DeferredResult `json:"result,omitempty"`
}

// DeferredResult names a tool result the snapshot's activity computes
// again and stores with the snapshot: the call's arguments, the key it is
// stored under, and the artifact id the computation must reproduce.
type DeferredResult struct {
	Tool       string          `json:"tool"`
	Key        string          `json:"key"`
	Args       json.RawMessage `json:"args"`
	ArtifactID string          `json:"artifact_id"`
}

// SessionInput starts (or continues) a session workflow. ContinueAfter is
// the number of committed calls after which the run continues as new (0
// means 500); tests lower it.
type SessionInput struct {
	State         SessionState `json:"state"`
	ContinueAfter int          `json:"continue_after,omitempty"`
}

// Decision is the experiment workflow's report of an operator decision.
type Decision struct {
	ExperimentID string `json:"experiment_id"`
	Status       string `json:"status"`
	ProtocolHash string `json:"protocol_hash"`
	DecidedAt    string `json:"decided_at"`
	Reason       string `json:"reason,omitempty"`
	// ExpiresAt is when an approval lapses unless the experiment runs.
	ExpiresAt string `json:"expires_at,omitempty"`
	// DecisionID names the operator decision record behind an approval or
	// rejection; the session verifies it as the experiment did.
	DecisionID string `json:"decision_id,omitempty"`
}

// Approve is the operator's approval signal payload.
// DecisionID names the operator decision record the API wrote; without
// one the signal decides nothing.
type Approve struct {
	ProtocolHash string `json:"protocol_hash"`
	Operator     string `json:"operator"`
	DecisionID   string `json:"decision_id,omitempty"`
}

// Reject is the operator's rejection signal payload.
// DecisionID names the operator decision record the API wrote.
type Reject struct {
	Reason     string `json:"reason"`
	Operator   string `json:"operator"`
	DecisionID string `json:"decision_id,omitempty"`
}

// DecisionCheck is the input of the VerifyDecision activity: a gate
// signal as received, to be matched against the operator decision record.
// AttemptKey keys the refusal record of a signal that fails the check.
type DecisionCheck struct {
	ExperimentID    string `json:"experiment_id"`
	Status          string `json:"status"`
	ProtocolHash    string `json:"protocol_hash"`
	DecisionID      string `json:"decision_id"`
	ClaimedOperator string `json:"claimed_operator"`
	AttemptKey      string `json:"attempt_key"`
}

// DecisionVerdict is what VerifyDecision found: an authentic decision
// with the operator and reason of the record (never the signal's), or a
// refusal and why.
type DecisionVerdict struct {
	Authentic bool   `json:"authentic"`
	Operator  string `json:"operator,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Refusal   string `json:"refusal,omitempty"`
}

// DecisionRecord is the input of the RecordDecision activity.
type DecisionRecord struct {
	ExperimentID string `json:"experiment_id"`
	Status       string `json:"status"`
	ProtocolHash string `json:"protocol_hash"`
	DecidedAt    string `json:"decided_at"`
	DecidedBy    string `json:"decided_by"`
	Reason       string `json:"reason,omitempty"`
}

// ExperimentInput starts an experiment workflow.
type ExperimentInput struct {
	ExperimentID      string `json:"experiment_id"`
	SessionID         string `json:"session_id"`
	ProtocolHash      string `json:"protocol_hash"`
	SeedManifestHash  string `json:"seed_manifest_hash"`
	SessionWorkflowID string `json:"session_workflow_id"`
}

// ExperimentStatus is the experiment workflow's queryable state.
type ExperimentStatus struct {
	ExperimentID string `json:"experiment_id"`
	SessionID    string `json:"session_id"`
	Status       string `json:"status"`
	ProtocolHash string `json:"protocol_hash"`
	DecidedAt    string `json:"decided_at,omitempty"`
	DecidedBy    string `json:"decided_by,omitempty"`
	Reason       string `json:"reason,omitempty"`
	BatchID      string `json:"batch_id,omitempty"`
	ExpiresAt    string `json:"expires_at,omitempty"`
}
