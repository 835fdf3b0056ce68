package research

import (
	"context"
	"errors"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// project loads a project the caller may use; another project's id answers
// forbidden whether or not it exists, so keys learn nothing about others.
func (s *Service) project(ctx context.Context, c *Call, id string) (models.Project, error) {
	if !c.Principal.MayUseProject(id) {
		return models.Project{}, toolErr(CodeForbidden, "/project_id", "this credential may not use project %s", id)
	}
	p, err := models.ProjectByID(ctx, s.DB, id)
	if errors.Is(err, models.ErrNoRecord) {
		return p, toolErr(CodeNotFound, "/project_id", "no project %s", id)
	}
	return p, err
}

// calledExperiment decodes a call's experimentArgs and loads the
// experiment it names, in a project the caller may use.
func (s *Service) calledExperiment(ctx context.Context, c *Call) (experimentArgs, models.Project, models.Experiment, error) {
	var in experimentArgs
	if err := c.decode(&in); err != nil {
		return in, models.Project{}, models.Experiment{}, err
	}
	p, e, err := s.experiment(ctx, c, in.ProjectID, in.ExperimentID)
	return in, p, e, err
}

// experiment loads an experiment of a project the caller may use.
func (s *Service) experiment(ctx context.Context, c *Call, projectID, id string) (models.Project, models.Experiment, error) {
	p, err := s.project(ctx, c, projectID)
	if err != nil {
		return p, models.Experiment{}, err
	}
	e, err := models.ExperimentInProject(ctx, s.DB, projectID, id)
	if errors.Is(err, models.ErrNoRecord) {
		return p, e, toolErr(CodeNotFound, "/experiment_id", "no experiment %s in project %s", id, projectID)
	}
	return p, e, err
}

// target loads the experiment a target_id names; errors point at /target_id.
func (s *Service) target(ctx context.Context, c *Call, projectID, id string) (models.Experiment, error) {
	_, e, err := s.experiment(ctx, c, projectID, id)
	return e, targetError(err)
}

// targetError points an experiment lookup's error at /target_id.
func targetError(err error) error {
	var te *ToolError
	if errors.As(err, &te) && te.Pointer == "/experiment_id" {
		cp := *te
		cp.Pointer = "/target_id"
		return &cp
	}
	return err
}

// state reads the experiment's state: its workflow's query (the authority
// for its gate) while it runs, its stored final state once it ended.
func (s *Service) state(ctx context.Context, experimentID string) (wf.ExperimentState, error) {
	st, _, err := s.experimentState(ctx, experimentID)
	return st, err
}

// experimentState is state; final says the experiment's workflow ended, so
// the answer will not change.
func (s *Service) experimentState(ctx context.Context, experimentID string) (wf.ExperimentState, bool, error) {
	var st wf.ExperimentState
	final, err := s.workflowState(ctx, wf.ExperimentWorkflowID(experimentID), wf.StateQuery, &st)
	if errors.Is(err, errWorkflowGone) {
		st, err = s.rebuiltExperimentState(ctx, experimentID)
		return st, true, err
	}
	return st, final, err
}

// notify tells the experiment's workflow about a record the caller
// writes (see notice): the notice of signal for recordID, with the
// signal's payload for an older worker.
func (s *Service) notify(ctx context.Context, experimentID, signal, recordID string, legacy any) (*notice, error) {
	n, err := s.sendNotice(ctx, wf.ExperimentWorkflowID(experimentID), signal, recordID, legacy)
	if s.restartedMissing(ctx, err, experimentID) {
		n, err = s.sendNotice(ctx, wf.ExperimentWorkflowID(experimentID), signal, recordID, legacy)
	}
	return n, closedSignalError(ctx, s.DB, err, targetExperiment, experimentID, signal)
}

// restartedMissing starts the workflow of an open experiment Temporal does
// not know (experiment.create stored the row, then could not start it),
// so the call that found it missing can go on; false if err is not that.
func (s *Service) restartedMissing(ctx context.Context, err error, experimentID string) bool {
	var nf *serviceerror.NotFound
	if !errors.As(err, &nf) || terminalStatus(ctx, s.DB, targetExperiment, experimentID) != "" {
		return false
	}
	e, lerr := models.ExperimentByID(ctx, s.DB, experimentID)
	if lerr != nil || e.Revision != 0 || e.Gate != "" {
		return false // a run that progressed is not restarted from planned
	}
	_, serr := s.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: wf.ExperimentWorkflowID(e.ID), TaskQueue: s.Config.TaskQueue},
		wf.ExperimentWorkflowName, wf.ExperimentInput{ProjectID: e.ProjectID, ExperimentID: e.ID, Name: e.Name})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	return serr == nil || errors.As(serr, &started)
}
