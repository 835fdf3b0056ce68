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

// Evidence names one thing a requirement needs.
type Evidence = gateengine.Evidence

// Evidence an experiment's gates check.
const (
	EvPlan             Evidence = "plan"
	EvResult           Evidence = "result"
	EvReport           Evidence = "report"
	EvGraph            Evidence = "graph"
	EvDependencies     Evidence = "dependencies"
	EvDesignReview     Evidence = "design_review"
	EvExperimentReview Evidence = "experiment_review"
	// EvSandboxRunning is not a requirement but a condition: Satisfied
	// while a sandbox attached to the experiment is running. It turns a
	// missing artifact row's Gate into its ActiveGate.
	EvSandboxRunning Evidence = "sandbox_running"
)

// Kind says how a requirement's evidence is judged and reported.
type Kind = gateengine.Kind

// The kinds of an experiment's requirements.
const (
	KindArtifact     = gateengine.KindArtifact
	KindReview       = gateengine.KindReview
	KindDependencies = gateengine.KindDependencies
)

// Requirement is one row of a status (see gateengine.Requirement).
type Requirement = gateengine.Requirement

// Forward is what a status offers once every requirement is satisfied.
type Forward = gateengine.Forward

// Stage is one open status of the machine.
type Stage = gateengine.Stage[Status]

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
var Table = []Stage{
	{
		Status: Planned,
		Requirements: []Requirement{
			{Evidence: EvPlan, Kind: KindArtifact, Gate: "plan_required", NextAction: "write_and_submit_plan", AllowedTools: []string{toolArtifact}},
		},
		Forward: Forward{Transition: TSubmitDesign, Gate: "design_review_required", NextAction: "submit_design_for_review", AllowedTools: []string{toolTransition}},
		Side:    []string{TAbandon, TMarkFailed},
	},
	{
		Status: DesignReview,
		Requirements: []Requirement{
			{Evidence: EvDesignReview, Kind: KindReview, Gate: string(DesignReview), NextAction: "launch_design_reviewer", WaitAction: "wait_for_design_review", AllowedTools: []string{toolReviewReq, toolReviewStatus}},
		},
		Forward: Forward{Transition: TMarkReadyToRun, Gate: "design_review_passed", NextAction: "mark_ready_to_run", AllowedTools: []string{toolTransition}},
		Side:    []string{TAbandon, TMarkFailed},
	},
	{
		Status: ReadyToRun,
		Requirements: []Requirement{
			{Evidence: EvDependencies, Kind: KindDependencies, Gate: "dependencies_pending", NextAction: "wait_for_dependencies", AllowedTools: []string{toolStatus},
				InvalidGate: "dependency_failed", InvalidAction: "abandon_experiment"},
		},
		Forward: Forward{Transition: TStartRunning, Gate: "execution_ready", NextAction: "start_running", AllowedTools: append(sandboxTools[:2:2], toolTransition)},
		Side:    []string{TAbandon, TMarkFailed},
	},
	{
		Status: Running,
		Requirements: []Requirement{
			{Evidence: EvResult, Kind: KindArtifact, Gate: "execution_ready", ActiveGate: "execution_active", ActiveWhen: EvSandboxRunning, NextAction: "run_experiment_and_retain_results", AllowedTools: append(append([]string{}, sandboxTools...), toolArtifact, toolTransition)},
			{Evidence: EvReport, Kind: KindArtifact, Gate: "results_report_required", NextAction: "write_and_submit_results_report", AllowedTools: []string{toolArtifact}},
			{Evidence: EvGraph, Kind: KindArtifact, Gate: "logic_graph_required", NextAction: "write_and_submit_logic_graph", AllowedTools: []string{toolArtifact}},
		},
		Forward: Forward{Transition: TSubmitResults, Gate: "experiment_review_required", NextAction: "submit_results_for_review", AllowedTools: []string{toolTransition}},
		Side:    []string{TRetryRunning, TAbandon, TMarkFailed},
	},
	{
		Status: ExperimentReview,
		Requirements: []Requirement{
			{Evidence: EvExperimentReview, Kind: KindReview, Gate: string(ExperimentReview), NextAction: "launch_experiment_reviewer", WaitAction: "wait_for_experiment_review", AllowedTools: []string{toolReviewReq, toolReviewStatus}},
		},
		Forward: Forward{Transition: TComplete, Gate: "experiment_review_passed", NextAction: "complete_experiment", AllowedTools: []string{toolTransition}},
		Side:    []string{TAbandon, TMarkFailed},
	},
}

// Move is where a transition takes an experiment.
type Move = gateengine.Move[Status]

// Moves lists every transition.
var Moves = []Move{
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
var ReviewEvidence = map[Status]Evidence{DesignReview: EvDesignReview, ExperimentReview: EvExperimentReview}

// machine is the experiment's gate machine over Table.
var machine = &gateengine.Machine[Status]{Stages: Table, Moves: Moves, Aliases: Aliases,
	TransitionTool: toolTransition, StatusTool: toolStatus}

// StageOf returns the stage of an open status.
func StageOf(s Status) (Stage, bool) { return machine.StageOf(s) }

// MoveOf resolves a transition name or alias.
func MoveOf(name string) (Move, bool) { return machine.MoveOf(name) }
