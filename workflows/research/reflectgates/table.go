package reflectgates

import "github.com/gatehouse/gatehouse/workflows/research/gateengine"

// Status is a reflection wave's lifecycle status.
type Status string

// Reflection statuses.
const (
	Reflecting       Status = "reflecting"
	Synthesizing     Status = "synthesizing"
	ReflectionReview Status = "reflection_review"
	Consolidating    Status = "consolidating"
	Published        Status = "published"
	Abandoned        Status = "abandoned"
)

// Terminal reports whether no transition leaves s.
func (s Status) Terminal() bool { return s == Published || s == Abandoned }

// Evidence a reflection's gates check (artifact evidence is named by role).
const (
	EvLensDocs            gateengine.Evidence = "reflection_lens_doc"
	EvProjectGraph        gateengine.Evidence = "project_graph"
	EvReflectionDoc       gateengine.Evidence = "reflection_doc"
	EvChangeSpec          gateengine.Evidence = "change_spec"
	EvReflectionReview    gateengine.Evidence = "reflection_review"
	EvProposal            gateengine.Evidence = "consolidation_proposal"
	EvConsolidationReview gateengine.Evidence = "consolidation_review"
	EvCentralAdvance      gateengine.Evidence = "central_advance"
)

// Conditions of a wave's overrides: each is Satisfied while the wave's
// next step is its abandon transition rather than its gate's own action
// (see ReflectionState.Facts for how each is derived).
const (
	// EvReflectionFailed holds while the reflection review's last verdict
	// was fail and no artifact landed since: abandon_reflection.
	EvReflectionFailed gateengine.Evidence = "reflection_failed"
	// EvConsolidationFailed holds while the consolidation review's last
	// verdict was fail and no proposal of the new revision came since:
	// abandon_reflection.
	EvConsolidationFailed gateengine.Evidence = "consolidation_failed"
)

// Transition names (the reflection.transition argument).
const (
	TSubmitReflections         = "submit_reflections"
	TSubmitReflectionArtifacts = "submit_reflection_artifacts"
	TBeginConsolidation        = "begin_consolidation"
	TPublish                   = "publish"
	TAbandon                   = "abandon"

	toolTransition   = "reflection.transition"
	toolGet          = "reflection.get"
	toolArtifact     = "artifact.submit"
	toolReviewReq    = "review.request"
	toolReviewStatus = "review.status"
	toolConsGet      = "consolidation.get"
	toolConsSubmit   = "consolidation.submit"
	toolStatus       = "workflow.status_and_next"
)

// Table is the reflection gate machine. Adding a gate is adding a row.
var Table = []gateengine.Stage[Status]{
	{
		Status: Reflecting,
		Requirements: []gateengine.Requirement{
			{Evidence: EvLensDocs, Kind: gateengine.KindLenses, Gate: "reflection_roster_incomplete", NextAction: "fan_out_reflection_subagents", AllowedTools: []string{toolGet, toolArtifact}},
		},
		Forward:   gateengine.Forward{Transition: TSubmitReflections, Gate: "reflections_complete", NextAction: "submit_reflections", AllowedTools: []string{toolTransition}},
		Side:      []string{TAbandon},
		Overrides: []gateengine.Override{{When: EvReflectionFailed, NextAction: "abandon_reflection", Transition: TAbandon}},
	},
	{
		Status: Synthesizing,
		Requirements: []gateengine.Requirement{
			{Evidence: EvProjectGraph, Kind: gateengine.KindArtifact, Gate: "project_graph_required", NextAction: "update_and_submit_project_graph", AllowedTools: []string{toolGet, toolArtifact}},
			{Evidence: EvReflectionDoc, Kind: gateengine.KindArtifact, Gate: "reflection_doc_required", NextAction: "write_and_submit_reflection_doc", AllowedTools: []string{toolGet, toolArtifact}},
			{Evidence: EvChangeSpec, Kind: gateengine.KindArtifact, Gate: "change_spec_required", NextAction: "write_and_submit_change_spec", AllowedTools: []string{toolGet, toolArtifact}},
		},
		Forward:   gateengine.Forward{Transition: TSubmitReflectionArtifacts, Gate: "reflection_review_required", NextAction: "submit_reflection_artifacts", AllowedTools: []string{toolTransition}},
		Side:      []string{TAbandon},
		Overrides: []gateengine.Override{{When: EvReflectionFailed, NextAction: "abandon_reflection", Transition: TAbandon}},
	},
	{
		Status: ReflectionReview,
		Requirements: []gateengine.Requirement{
			{Evidence: EvReflectionReview, Kind: gateengine.KindReview, Gate: string(ReflectionReview), NextAction: "launch_reflection_reviewer", WaitAction: "wait_for_reflection_review", AllowedTools: []string{toolReviewReq, toolReviewStatus}},
		},
		Forward: gateengine.Forward{Transition: TBeginConsolidation, Gate: "reflection_review_passed", NextAction: "begin_consolidation", AllowedTools: []string{toolTransition}},
		Side:    []string{TAbandon},
	},
	{
		Status: Consolidating,
		Requirements: []gateengine.Requirement{
			{Evidence: EvProposal, Kind: gateengine.KindProposal, Gate: "consolidation_proposal_required", NextAction: "submit_consolidation_proposal", AllowedTools: []string{toolConsGet, toolConsSubmit}},
			{Evidence: EvConsolidationReview, Kind: gateengine.KindReview, Gate: "consolidation_review_required", RequestedGate: "consolidating", NextAction: "launch_consolidation_reviewer", WaitAction: "wait_for_consolidation_review", AllowedTools: []string{toolReviewReq, toolReviewStatus}},
			// advance_central while the advance is due (the workflow runs it by
			// itself), wait_for_central_advance once it is intended.
			{Evidence: EvCentralAdvance, Kind: gateengine.KindAdvance, Gate: "central_advance_required", NextAction: "advance_central", WaitAction: "wait_for_central_advance", AllowedTools: []string{},
				InvalidGate: "consolidation_proposal_required", InvalidAction: "submit_consolidation_proposal", LocksSide: true},
		},
		// The workflow publishes by itself once the advance is bound (the
		// runner's publish); the publish transition asks for it explicitly.
		Forward:   gateengine.Forward{Transition: TPublish, Gate: "consolidation_review_passed", NextAction: "wait_for_runner_publish", AllowedTools: []string{toolTransition}},
		Side:      []string{TAbandon},
		Overrides: []gateengine.Override{{When: EvConsolidationFailed, NextAction: "abandon_reflection", Transition: TAbandon}},
	},
}

// Moves lists every transition.
var Moves = []gateengine.Move[Status]{
	{Name: TSubmitReflections, To: Synthesizing},
	{Name: TSubmitReflectionArtifacts, To: ReflectionReview},
	{Name: TBeginConsolidation, To: Consolidating},
	{Name: TPublish, To: Published},
	{Name: TAbandon, To: Abandoned},
}

// ReviewKinds maps a review status to the review kind pending there and
// the evidence it satisfies.
var ReviewKinds = map[Status]struct {
	Kind     string
	Evidence gateengine.Evidence
}{
	ReflectionReview: {"reflection", EvReflectionReview},
	Consolidating:    {"consolidation", EvConsolidationReview},
}

// Aliases maps next_action words accepted as transition names, as the
// experiment's do: an agent that sends the next_action it was given is
// understood.
var Aliases = map[string]string{"abandon_reflection": TAbandon}

// machine is the reflection's gate machine over Table.
var machine = &gateengine.Machine[Status]{Noun: "reflection", Stages: Table, Moves: Moves, Aliases: Aliases,
	TransitionTool: toolTransition, StatusTool: toolStatus}

// StageOf returns the stage of an open status.
func StageOf(s Status) (gateengine.Stage[Status], bool) { return machine.StageOf(s) }

// MoveOf resolves a transition name or alias.
func MoveOf(name string) (gateengine.Move[Status], bool) { return machine.MoveOf(name) }
