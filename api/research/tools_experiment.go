package research

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"gorm.io/gorm"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// Project limits of the reference behaviour.
const (
	maxOpenExperiments       = 7
	finishedBeforeReflection = 5
	// finishedSuggestReflection finished experiments since the last
	// published reflection, with none live, suggest one
	// (reflection_suggested).
	finishedSuggestReflection = 2
)

var folderSafe = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{2,47}$`)

func init() {
	transitions := transitionNames(gates.Moves, gates.Aliases)
	registerFamily("experiment",
		Tool{Name: "experiment.create", Handler: experimentCreate, Description: "Create an experiment (folder experiments/<name>/) and start its workflow at planned.",
			Schema: object([]string{"project_id", "name"}, props{"project_id": projectID,
				"name":   map[string]any{"type": "string", "pattern": folderSafe.String(), "description": "3–48 chars, folder-safe (lowercase, digits, . _ -)"},
				"intent": strLen("one-line headline, the UI title", 0, 400), "tested_claim_ids": strList("claims this tests", 50),
				"status": enum("initial status (only planned)", "planned"),
				"title":  strLen("deprecated: put it in plan.md", 0, 400), "hypothesis": strLen("deprecated", 0, 8000),
				"design": strLen("deprecated", 0, 8000), "success_criteria": strLen("deprecated", 0, 8000), "risks": strLen("deprecated", 0, 8000)})},
		Tool{Name: "experiment.transition", Handler: experimentTransition, Description: "Move the experiment: one of allowed_actions' transitions (aliases: the next_action words).",
			Schema: object([]string{"project_id", "experiment_id", "transition"}, props{"project_id": projectID, "experiment_id": experimentID,
				"transition": enum("transition", transitions...), "evidence": evidenceSchema})},
		Tool{Name: "experiment.exhibit", Handler: experimentExhibit, ReadOnly: true, Description: "Read-only metrics exhibit built from the experiment's result files (metrics.json, results.json, results/*.json): its uploaded artifacts and the pinned storage objects it produced.",
			Schema: object([]string{"project_id", "experiment_id"}, props{"project_id": projectID, "experiment_id": experimentID})},
		Tool{Name: "experiment.list", Hidden: true, ReadOnly: true, Handler: experimentList, Description: "Internal: a project's experiments with their current gate.",
			Schema: object([]string{"project_id"}, props{"project_id": projectID})},
		Tool{Name: "experiment.get_state", Hidden: true, ReadOnly: true, Handler: experimentGetState, Description: "Internal: the experiment workflow's raw state.",
			Schema: object([]string{"project_id", "experiment_id"}, props{"project_id": projectID, "experiment_id": experimentID})},
	)
}

type experimentArgs struct {
	ProjectID      string         `json:"project_id"`
	ExperimentID   string         `json:"experiment_id"`
	Name           string         `json:"name"`
	Intent         string         `json:"intent"`
	TestedClaimIDs []string       `json:"tested_claim_ids"`
	Title          string         `json:"title"`
	Hypothesis     string         `json:"hypothesis"`
	Design         string         `json:"design"`
	Success        string         `json:"success_criteria"`
	Risks          string         `json:"risks"`
	Transition     string         `json:"transition"`
	Evidence       map[string]any `json:"evidence"`
}

func experimentCreate(ctx context.Context, s *Service, c *Call) (any, error) {
	var in experimentArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	p, err := s.project(ctx, c, in.ProjectID)
	if err != nil {
		return nil, err
	}
	plan, _ := json.Marshal(map[string]any{"title": in.Title, "hypothesis": in.Hypothesis, "design": in.Design,
		"success_criteria": in.Success, "risks": in.Risks, "tested_claim_ids": in.TestedClaimIDs})
	e, created, err := models.CreateExperiment(ctx, s.DB, models.Experiment{ID: models.NewID("exp_"), ProjectID: p.ID,
		Name: in.Name, Intent: in.Intent, PlanJSON: string(plan), Status: string(gates.Planned)},
		func(tx *gorm.DB) error { return checkLimits(ctx, tx, p.ID) })
	if err != nil {
		return nil, err
	}
	_, err = s.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: wf.ExperimentWorkflowID(e.ID), TaskQueue: s.Config.TaskQueue},
		wf.ExperimentWorkflowName, wf.ExperimentInput{ProjectID: p.ID, ExperimentID: e.ID, Name: e.Name})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err != nil && !errors.As(err, &started) {
		return nil, err
	}
	return experimentCreated{Experiment: experimentSummary(e), ExperimentID: e.ID, Created: created,
		Folder: "experiments/" + e.Name + "/", WorkflowID: wf.ExperimentWorkflowID(e.ID),
		Next: "call workflow.status_and_next with this experiment_id"}, nil
}

// checkLimits refuses an eighth open experiment, and a new one once five
// finished without a published reflection; it counts in db, the
// transaction that stores the new experiment.
func checkLimits(ctx context.Context, db *gorm.DB, projectID string) error {
	open, err := models.CountOpenExperiments(ctx, db, projectID)
	if err != nil {
		return err
	}
	if open >= maxOpenExperiments {
		return &ToolError{Code: CodeConflict, Reason: ReasonProjectLimit, Message: "a project may have at most 7 open experiments; finish or abandon one first"}
	}
	since, err := models.LastPublishedAt(ctx, db, projectID)
	if err != nil {
		return err
	}
	finished, err := models.CountFinishedSince(ctx, db, projectID, since)
	if err != nil {
		return err
	}
	if finished >= finishedBeforeReflection {
		return &ToolError{Code: CodeGateBlocked, Reason: ReasonReflectionRequired, Message: "5 experiments finished since the last published reflection; run a reflection (reflection.create) first"}
	}
	return nil
}

func experimentTransition(ctx context.Context, s *Service, c *Call) (any, error) {
	in, _, e, err := s.calledExperiment(ctx, c)
	if err != nil {
		return nil, err
	}
	code, evidence, err := s.experimentCode(ctx, e, in.Transition, in.Evidence)
	if err != nil {
		return nil, err
	}
	update := func() (wf.TransitionResult, error) {
		h, err := s.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: wf.ExperimentWorkflowID(in.ExperimentID),
			UpdateName: wf.TransitionUpdate, Args: []any{wf.TransitionRequest{Transition: in.Transition, Evidence: evidence}},
			WaitForStage: client.WorkflowUpdateStageCompleted})
		var res wf.TransitionResult
		if err == nil {
			err = h.Get(ctx, &res)
		}
		return res, err
	}
	res, err := update()
	if s.restartedMissing(ctx, err, in.ExperimentID) {
		res, err = update()
	}
	if closed := closedTransitionError(ctx, s.DB, err, targetExperiment, in.ExperimentID); closed != nil {
		return nil, closed
	}
	if err != nil {
		return nil, transitionError(err, targetExperiment)
	}
	if code == nil {
		return res, nil
	}
	// Written once the workflow accepted the move (a refused move records
	// nothing); the update's history carries the same values.
	recorded, err := models.RecordExperimentCode(context.WithoutCancel(ctx), s.DB, *code, time.Now().UTC())
	if err != nil {
		return nil, fmt.Errorf("%s was applied but its code state was not recorded: %w", res.Transition, err)
	}
	return transitionAnswer{TransitionResult: res, Code: codeView(recorded, true)}, nil
}

// transitionAnswer is a transition's result with the code state it recorded.
type transitionAnswer struct {
	wf.TransitionResult
	Code codeViewResp `json:"code"`
}

// transitionError maps a transition Update's validator refusal (experiment
// or reflection: both validators use the same error types) to tool errors.
func transitionError(err error, kind string) error {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		switch ae.Type() {
		case wf.ErrTypeGateBlocked:
			var be gateengine.BlockedError
			_ = ae.Details(&be)
			return &ToolError{Code: CodeGateBlocked, Pointer: "/transition", Message: ae.Message(), Details: map[string]any{
				"current_gate": be.Gate, "allowed_transitions": be.AllowedActions, "blocked_actions": be.BlockedActions, "missing_evidence": be.MissingEvidence}}
		case wf.ErrTypeInvalidInput:
			return invalid("/transition", ae.Message())
		}
	}
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return missingWorkflowError(kind)
	}
	return err
}

func experimentList(ctx context.Context, s *Service, c *Call) (any, error) {
	var in experimentArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	exps, err := models.ProjectExperiments(ctx, s.DB, in.ProjectID)
	if err != nil {
		return nil, err
	}
	out := make([]experimentSummaryResp, 0, len(exps))
	for _, e := range exps {
		out = append(out, experimentSummary(e))
	}
	return experimentsAnswer{Experiments: out, Authority: "gates are mirrored from each experiment's workflow"}, nil
}

func experimentGetState(ctx context.Context, s *Service, c *Call) (any, error) {
	in, _, _, err := s.calledExperiment(ctx, c)
	if err != nil {
		return nil, err
	}
	st, err := s.state(ctx, in.ExperimentID)
	if err != nil {
		return nil, err
	}
	code, ok, err := models.ExperimentCodeOf(ctx, s.DB, in.ExperimentID)
	if err != nil {
		return nil, err
	}
	return experimentStateResp{State: st, Workflow: st.Decision(), Code: codeView(code, ok)}, nil
}

// experimentCreated is experiment.create's answer. Fields are in the
// order of their JSON keys, as the map it replaced encoded them.
type experimentCreated struct {
	Created      bool                  `json:"created"`
	Experiment   experimentSummaryResp `json:"experiment"`
	ExperimentID string                `json:"experiment_id"`
	Folder       string                `json:"folder"`
	Next         string                `json:"next"`
	WorkflowID   string                `json:"workflow_id"`
}

// experimentsAnswer is experiment.list's answer (and, with the operator's
// authority line, the console's experiment list).
type experimentsAnswer struct {
	Authority   string                  `json:"authority"`
	Experiments []experimentSummaryResp `json:"experiments"`
}

// experimentStateResp answers experiment.get_state: the workflow's state,
// its gate decision and the recorded code.
type experimentStateResp struct {
	Code     codeViewResp        `json:"code"`
	State    wf.ExperimentState  `json:"state"`
	Workflow gateengine.Decision `json:"workflow"`
}
