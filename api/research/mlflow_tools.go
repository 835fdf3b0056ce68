package research

import (
	"context"
	"errors"
	"regexp"
	"sort"
	"strconv"

	"github.com/gatehouse/gatehouse/internal/mlflow"
	models "github.com/gatehouse/gatehouse/models/research"
)

var mlflowKeyUnsafe = regexp.MustCompile(`[^A-Za-z0-9_\-. /]`)

// mlflowClient is the configured tracking server, or a typed error.
func (s *Service) mlflowClient() (*mlflow.Client, error) {
	if s.Config.MLflowTrackingURI == "" {
		return nil, &ToolError{Code: CodeUnavailable, Message: "tracking is on but GATEHOUSE_MLFLOW_TRACKING_URI is not set"}
	}
	return &mlflow.Client{BaseURL: s.Config.MLflowTrackingURI}, nil
}

// mlflowRun finds or creates the experiment's MLflow experiment and run.
func (s *Service) mlflowRun(ctx context.Context, c *Call) (models.Experiment, models.MLflowRun, *mlflow.Client, error) {
	_, p, e, err := s.calledExperiment(ctx, c)
	if err != nil {
		return e, models.MLflowRun{}, nil, err
	}
	cl, err := s.mlflowClient()
	if err != nil {
		return e, models.MLflowRun{}, nil, err
	}
	run, err := models.MLflowRunOf(ctx, s.DB, e.ID)
	if err == nil {
		return e, run, cl, nil
	}
	if !errors.Is(err, models.ErrNoRecord) {
		return e, run, nil, err
	}
	tags := []mlflow.Tag{{Key: "gatehouse.project_id", Value: p.ID}}
	mexp, err := cl.EnsureExperiment(ctx, "gatehouse/"+p.Name, tags)
	if err != nil {
		return e, run, nil, mlflowFailed(err)
	}
	runID, err := cl.CreateRun(ctx, mexp, e.Name, s.now(), append(tags, mlflow.Tag{Key: "gatehouse.experiment_id", Value: e.ID},
		mlflow.Tag{Key: "mlflow.runName", Value: e.Name}))
	if err != nil {
		return e, run, nil, mlflowFailed(err)
	}
	run, err = models.RecordMLflowRun(ctx, s.DB, models.MLflowRun{ExperimentID: e.ID, ProjectID: p.ID, MLflowExperimentID: mexp, RunID: runID})
	if err != nil {
		return e, run, nil, err
	}
	return e, run, cl, nil
}

func mlflowFailed(err error) error {
	return &ToolError{Code: CodeUnavailable, Message: "the MLflow tracking server refused or failed: " + err.Error()}
}

// mlflowAnswer is the answer of mlflow.context and mlflow.finalize_run:
// the run and the environment that points a job at it. Fields follow
// their keys' order; experiment_id is set by mlflow.context only,
// logged_* by a finalize that logged (0 included) and replayed by one that
// found the run already finished.
type mlflowAnswer struct {
	Env                mlflowEnv `json:"env"`
	ExperimentID       *string   `json:"experiment_id,omitempty"`
	Finished           bool      `json:"finished"`
	LoggedMetrics      *int      `json:"logged_metrics,omitempty"`
	LoggedParams       *int      `json:"logged_params,omitempty"`
	MLflowExperimentID string    `json:"mlflow_experiment_id"`
	Replayed           bool      `json:"replayed,omitempty"`
	RunID              string    `json:"run_id"`
	TrackingURI        string    `json:"tracking_uri"`
}

// mlflowEnv is the environment a job logs to the run with.
type mlflowEnv struct {
	ExperimentID string `json:"MLFLOW_EXPERIMENT_ID"`
	RunID        string `json:"MLFLOW_RUN_ID"`
	TrackingURI  string `json:"MLFLOW_TRACKING_URI"`
}

func mlflowView(s *Service, run models.MLflowRun) mlflowAnswer {
	return mlflowAnswer{TrackingURI: s.Config.MLflowTrackingURI, MLflowExperimentID: run.MLflowExperimentID, RunID: run.RunID,
		Finished: run.FinishedAt != nil, Env: mlflowEnv{TrackingURI: s.Config.MLflowTrackingURI,
			ExperimentID: run.MLflowExperimentID, RunID: run.RunID}}
}

func mlflowContext(ctx context.Context, s *Service, c *Call) (any, error) {
	e, run, _, err := s.mlflowRun(ctx, c)
	if err != nil {
		return nil, err
	}
	out := mlflowView(s, run)
	out.ExperimentID = &e.ID
	return out, nil
}

func mlflowFinalize(ctx context.Context, s *Service, c *Call) (any, error) {
	e, run, cl, err := s.mlflowRun(ctx, c)
	if err != nil {
		return nil, err
	}
	if run.FinishedAt != nil {
		out := mlflowView(s, run)
		out.Replayed = true
		return out, nil
	}
	ex, err := experimentExhibit(ctx, s, c)
	if err != nil {
		return nil, err
	}
	now := s.now()
	values := map[string]float64{}
	for _, f := range ex.(exhibitAnswer).Files {
		for k, v := range f.Metrics {
			values[mlflowKeyUnsafe.ReplaceAllString(k, "_")] = v
		}
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// All metrics are sent: LogBatch splits them into requests within
	// MLflow's per-request limits.
	metrics := make([]mlflow.Metric, 0, len(keys))
	for _, k := range keys {
		metrics = append(metrics, mlflow.Metric{Key: k, Value: values[k], Timestamp: now.UnixMilli()})
	}
	params := []mlflow.Param{{Key: "gatehouse.experiment_name", Value: e.Name}, {Key: "gatehouse.status", Value: e.Status},
		{Key: "gatehouse.attempt_index", Value: strconv.Itoa(e.Attempt)}}
	if err := cl.LogBatch(ctx, run.RunID, params, metrics); err != nil {
		return nil, mlflowFailed(err)
	}
	if err := cl.FinishRun(ctx, run.RunID, now); err != nil {
		return nil, mlflowFailed(err)
	}
	if err := models.FinishMLflowRun(ctx, s.DB, e.ID, now); err != nil {
		return nil, err
	}
	run.FinishedAt = &now
	out := mlflowView(s, run)
	out.LoggedMetrics, out.LoggedParams = ptr(len(metrics)), ptr(len(params))
	return out, nil
}
