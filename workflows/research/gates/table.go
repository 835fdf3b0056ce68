package gates

import "github.com/gatehouse/gatehouse/workflows/research/gateengine"

// Status is an experiment's lifecycle status.
type Status string

// Experiment statuses.
const (
	Planned          Status = "planned"
	DesignReview     Status = "design_review"
	ReadyToRun       Status = "ready_to_run"
	Running          Status = "running"
	ExperimentReview Status = "experiment_review"
	Complete         Status = "complete"
	Failed           Status = "failed"
	Abandoned        Status = "abandoned"
)

// Terminal reports whether no transition leaves s.
func (s Status) Terminal() bool { return s == Complete || s == Failed || s == Abandoned }

// Evidence an experiment's gates check.
const (
	EvPlan             gateengine.Evidence = "plan"
	EvResult           gateengine.Evidence = "result"
	EvReport           gateengine.Evidence = "report"
	EvGraph            gateengine.Evidence = "graph"
	EvDependencies     gateengine.Evidence = "dependencies"
	EvDesignReview     gateengine.Evidence = "design_review"
	EvExperimentReview gateengine.Evidence = "experiment_review"
	// EvSandboxRunning is not a requirement but a condition: Satisfied
	// while a sandbox attached to the experiment is running. It turns a
	// missing artifact row's Gate into its ActiveGate.
	EvSandboxRunning gateengine.Evidence = "sandbox_running"
)

// Conditions of an experiment's overrides: each is Satisfied while the
// agent's next step is a side transition of the status rather than its
// gate's own action (see ExperimentState.Facts for how each is derived).
const (
	// EvSandboxInterrupted holds while the experiment runs with no result
	// of its attempt and no sandbox running, and the last attached sandbox
	// to stop ended abnormally (failed, expired, reaped, lost) after the
	// latest transition: the approved plan still stands, so retry_running.
	EvSandboxInterrupted gateengine.Evidence = "sandbox_interrupted"
	// EvAttemptFailed holds while the experiment review's last verdict was
	// fail and no artifact landed since: the reviewer judged the attempt
	// failed, so mark_experiment_failed.
	EvAttemptFailed gateengine.Evidence = "attempt_failed"
	// EvDesignFailed holds while the design review's last verdict was fail
	// and no artifact landed since: the design was judged unworkable, so
	// abandon_experiment.
	EvDesignFailed gateengine.Evidence = "design_failed"
)

// Transition names.
const (
	TSubmitDesign    = "submit_design"
	TMarkReadyToRun  = "mark_ready_to_run"
	TStartRunning    = "start_running"
	TSubmitResults   = "submit_results"
	TRetryRunning    = "retry_running"
	TComplete        = "complete"
	TAbandon         = "abandon"
	TMarkFailed      = "mark_failed"
	toolTransition   = "experiment.transition"
	toolArtifact     = "artifact.submit"
	toolReviewReq    = "review.request"
	toolReviewStatus = "review.status"
	toolStatus       = "workflow.status_and_next"
)

var sandboxTools = []string{"sandbox.request", "sandbox.attach", "sandbox.runs", "sandbox.terminal", "sandbox.pull_outputs"}

// Table is the experiment gate machine. Adding a gate is adding a row.
var Table = []gateengine.Stage[Status]{
	{
		Status: Planned,
		Requirements: []gateengine.Requirement{
			{Evidence: EvPlan, Kind: gateengine.KindArtifact, Gate: "plan_required", NextAction: "write_and_submit_plan", AllowedTools: []string{toolArtifact}},
		},
		Forward: gateengine.Forward{Transition: TSubmitDesign, Gate: "design_review_required", NextAction: "submit_design_for_review", AllowedTools: []string{toolTransition}},
		Side:    []string{TAbandon, TMarkFailed},
		Overrides: []gateengine.Override{
			{When: EvDesignFailed, NextAction: "abandon_experiment", Transition: TAbandon},
			{When: EvAttemptFailed, NextAction: "mark_experiment_failed", Transition: TMarkFailed},
		},
	},
	{
		Status: DesignReview,
		Requirements: []gateengine.Requirement{
			{Evidence: EvDesignReview, Kind: gateengine.KindReview, Gate: string(DesignReview), NextAction: "launch_design_reviewer", WaitAction: "wait_for_design_review", AllowedTools: []string{toolReviewReq, toolReviewStatus}},
		},
		Forward: gateengine.Forward{Transition: TMarkReadyToRun, Gate: "design_review_passed", NextAction: "mark_ready_to_run", AllowedTools: []string{toolTransition}},
		Side:    []string{TAbandon, TMarkFailed},
	},
	{
		Status: ReadyToRun,
		Requirements: []gateengine.Requirement{
			{Evidence: EvDependencies, Kind: gateengine.KindDependencies, Gate: "dependencies_pending", NextAction: "wait_for_dependencies", AllowedTools: []string{toolStatus},
				InvalidGate: "dependency_failed", InvalidAction: "abandon_experiment"},
		},
		Forward: gateengine.Forward{Transition: TStartRunning, Gate: "execution_ready", NextAction: "start_running", AllowedTools: append(sandboxTools[:2:2], toolTransition)},
		Side:    []string{TAbandon, TMarkFailed},
	},
	{
		Status: Running,
		Requirements: []gateengine.Requirement{
			{Evidence: EvResult, Kind: gateengine.KindArtifact, Gate: "execution_ready", ActiveGate: "execution_active", ActiveWhen: EvSandboxRunning, NextAction: "run_experiment_and_retain_results", AllowedTools: append(append([]string{}, sandboxTools...), toolArtifact, toolTransition)},
			{Evidence: EvReport, Kind: gateengine.KindArtifact, Gate: "results_report_required", NextAction: "write_and_submit_results_report", AllowedTools: []string{toolArtifact}},
			{Evidence: EvGraph, Kind: gateengine.KindArtifact, Gate: "logic_graph_required", NextAction: "write_and_submit_logic_graph", AllowedTools: []string{toolArtifact}},
		},
		Forward: gateengine.Forward{Transition: TSubmitResults, Gate: "experiment_review_required", NextAction: "submit_results_for_review", AllowedTools: []string{toolTransition}},
		Side:    []string{TRetryRunning, TAbandon, TMarkFailed},
		Overrides: []gateengine.Override{
			{When: EvAttemptFailed, NextAction: "mark_experiment_failed", Transition: TMarkFailed},
			{When: EvSandboxInterrupted, NextAction: "retry_running", Transition: TRetryRunning},
		},
	},
	{
		Status: ExperimentReview,
		Requirements: []gateengine.Requirement{
			{Evidence: EvExperimentReview, Kind: gateengine.KindReview, Gate: string(ExperimentReview), NextAction: "launch_experiment_reviewer", WaitAction: "wait_for_experiment_review", AllowedTools: []string{toolReviewReq, toolReviewStatus}},
		},
		Forward: gateengine.Forward{Transition: TComplete, Gate: "experiment_review_passed", NextAction: "complete_experiment", AllowedTools: []string{toolTransition}},
		Side:    []string{TAbandon, TMarkFailed},
	},
}

// Moves lists every transition.
var Moves = []gateengine.Move[Status]{
	{Name: TSubmitDesign, To: DesignReview},
	{Name: TMarkReadyToRun, To: ReadyToRun},
	{Name: TStartRunning, To: Running},
	{Name: TSubmitResults, To: ExperimentReview},
	{Name: TRetryRunning, To: Running},
	{Name: TComplete, To: Complete},
	{Name: TAbandon, To: Abandoned},
	{Name: TMarkFailed, To: Failed},
}

// Aliases maps next_action words accepted as transition names.
var Aliases = map[string]string{
	"submit_design_for_review":  TSubmitDesign,
	"submit_results_for_review": TSubmitResults,
	"complete_experiment":       TComplete,
	"abandon_experiment":        TAbandon,
	"mark_experiment_failed":    TMarkFailed,
}

// ReviewEvidence maps a review status to the review evidence it waits for.
var ReviewEvidence = map[Status]gateengine.Evidence{DesignReview: EvDesignReview, ExperimentReview: EvExperimentReview}

// machine is the experiment's gate machine over Table.
var machine = &gateengine.Machine[Status]{Stages: Table, Moves: Moves, Aliases: Aliases,
	TransitionTool: toolTransition, StatusTool: toolStatus}

// StageOf returns the stage of an open status.
func StageOf(s Status) (gateengine.Stage[Status], bool) { return machine.StageOf(s) }

// MoveOf resolves a transition name or alias.
func MoveOf(name string) (gateengine.Move[Status], bool) { return machine.MoveOf(name) }
