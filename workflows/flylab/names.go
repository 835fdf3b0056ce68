// Package flylab holds FlyLab's Temporal workflows: one long-lived page
// session workflow per session, whose Update handler serializes every
// mutating tool call behind a validator, and one experiment workflow per
// designed trial, which waits at the operator gate for an approve or reject
// signal. It imports only the Temporal SDK and plain types; the science and
// the database live behind activities named here.
package flylab

// Workflow, update, query and signal names, fixed once.
const (
	// SessionWorkflow is the registered name of the page session workflow.
	SessionWorkflow = "flylab.Session"
	// ExperimentWorkflow is the registered name of the experiment workflow.
	ExperimentWorkflow = "flylab.Experiment"
	// ToolUpdate carries one mutating tool call to the session workflow.
	ToolUpdate = "tool"
	// StateQuery reads a workflow's state without writing history.
	StateQuery = "state"
	// ApproveSignal is the operator's approval of an experiment.
	ApproveSignal = "approve"
	// RejectSignal is the operator's rejection of an experiment.
	RejectSignal = "reject"
	// RevokeSignal withdraws an experiment superseded by a new design.
	RevokeSignal = "revoke"
	// RanSignal tells an approved experiment its one run committed.
	RanSignal = "ran"
	// DecisionSignal tells the session an operator decided its experiment.
	DecisionSignal = "experiment_decision"
	// SessionIDPrefix starts every session workflow ID.
	SessionIDPrefix = "flylab-session/"
	// ExperimentIDPrefix starts every experiment workflow ID.
	ExperimentIDPrefix = "flylab-experiment/"
)

// Activity names (implemented in activities/flylab).
const (
	ActivityFindCircuits    = "flylab.FindCircuits"
	ActivityDraftHypothesis = "flylab.DraftHypothesis"
	ActivityDesignTrial     = "flylab.DesignTrial"
	ActivitySimulate        = "flylab.Simulate"
	ActivityAnalyze         = "flylab.Analyze"
	ActivityCompare         = "flylab.Compare"
	ActivitySaveEvidence    = "flylab.SaveEvidence"
	ActivityRecordDecision  = "flylab.RecordDecision"
	// ActivityVerifyDecision matches a gate signal with the operator
	// decision record the API wrote (experiment.go).
	ActivityVerifyDecision = "flylab.VerifyDecision"
	// ActivitySaveSession stores the session's committed state (a local
	// activity run at every commit).
	ActivitySaveSession = "flylab.SaveSession"
)

// Tool names of the contract.
const (
	ToolInspect  = "inspect_flylab_state"
	ToolFind     = "find_fly_circuits"
	ToolDraft    = "draft_fly_hypothesis"
	ToolDesign   = "design_stimulation_trial"
	ToolRun      = "run_fly_simulation"
	ToolAnalyze  = "analyze_fly_behavior"
	ToolCompare  = "compare_fly_trials"
	ToolSave     = "save_fly_evidence"
	KindSession  = "flylab-session"
	KindTrial    = "flylab-experiment"
	defaultLimit = 500
)

// Error codes of the contract the workflows produce themselves.
const (
	CodeInvalidInput          = "INVALID_INPUT"
	CodeNotFound              = "NOT_FOUND"
	CodeEvidenceMismatch      = "EVIDENCE_MISMATCH"
	CodeStaleState            = "STALE_STATE"
	CodeApprovalRequired      = "APPROVAL_REQUIRED"
	CodeRunLimitExceeded      = "RUN_LIMIT_EXCEEDED"
	CodeSimulationUnavailable = "SIMULATION_UNAVAILABLE"
)

// ExperimentWorkflowID is the readable workflow ID of an experiment.
func ExperimentWorkflowID(experimentID string) string { return ExperimentIDPrefix + experimentID }

// SessionWorkflowID is the workflow ID of a page session.
func SessionWorkflowID(sessionID string) string { return SessionIDPrefix + sessionID }

// activityFor maps a mutating tool to its activity.
var activityFor = map[string]string{
	ToolFind: ActivityFindCircuits, ToolDraft: ActivityDraftHypothesis, ToolDesign: ActivityDesignTrial,
	ToolRun: ActivitySimulate, ToolAnalyze: ActivityAnalyze, ToolCompare: ActivityCompare, ToolSave: ActivitySaveEvidence,
}
