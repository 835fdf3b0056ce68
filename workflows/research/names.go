package research

// Registered names of the experiment workflow and its handlers.
const (
	// ExperimentWorkflowName is the registered workflow type.
	ExperimentWorkflowName = "research.Experiment"
	// ExperimentIDPrefix starts every experiment workflow ID.
	ExperimentIDPrefix = "research-experiment/"
	// TransitionUpdate runs an experiment.transition.
	TransitionUpdate = "transition"
	// StateQuery returns the ExperimentState.
	StateQuery = "state"
	// ArtifactLandedSignal reports an artifact whose bytes were uploaded.
	ArtifactLandedSignal = "artifact-landed"
	// ReviewRequestedSignal reports a review.request.
	ReviewRequestedSignal = "review-requested"
	// ReviewStartedSignal reports a review.start.
	ReviewStartedSignal = "review-started"
	// ReviewVerdictSignal carries a review.submit verdict.
	ReviewVerdictSignal = "review-verdict"
	// DependencySettledSignal reports a dependency that finished.
	DependencySettledSignal = "dependency-settled"
	// SandboxActivitySignal reports an attached sandbox starting or
	// stopping to run (the execution_active gate).
	SandboxActivitySignal = "sandbox-activity"
	// RecordExperimentActivity mirrors status and gate into the database.
	RecordExperimentActivity = "research.RecordExperiment"
	// StoreExperimentFinalActivity stores the state an experiment ended
	// with, which reads are served from once its workflow closed.
	StoreExperimentFinalActivity = "research.StoreExperimentFinal"
	// KindExperiment is the GatehouseKind search attribute value.
	KindExperiment = "research-experiment"
)

// ExperimentWorkflowID returns the workflow ID of an experiment.
func ExperimentWorkflowID(experimentID string) string { return ExperimentIDPrefix + experimentID }
