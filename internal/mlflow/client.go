// Package mlflow is a small client of the MLflow tracking server's REST API
// (the 2.0 endpoints): find or create an experiment, create a run, log a
// batch of params and metrics, and end the run.
package mlflow

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client talks to one tracking server.
type Client struct {
	// BaseURL is the tracking URI, e.g. http://mlflow:5000.
	BaseURL string
	// HTTP is the transport (default: a client with a 30 s timeout).
	HTTP *http.Client
}

// Error is an MLflow error response.
type Error struct {
	Status    int    `json:"-"`
	ErrorCode string `json:"error_code"`
	Message   string `json:"message"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("mlflow: %d %s: %s", e.Status, e.ErrorCode, e.Message)
}

// NotFound reports whether err is MLflow's RESOURCE_DOES_NOT_EXIST.
func NotFound(err error) bool {
	e, ok := err.(*Error)
	return ok && (e.ErrorCode == "RESOURCE_DOES_NOT_EXIST" || e.Status == http.StatusNotFound)
}

// Tag is a run or experiment tag.
type Tag struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Param is a run parameter.
type Param struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Metric is one metric value.
type Metric struct {
	Key       string  `json:"key"`
	Value     float64 `json:"value"`
	Timestamp int64   `json:"timestamp"`
	Step      int64   `json:"step"`
}

func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	u := strings.TrimRight(c.BaseURL, "/") + "/api/2.0/mlflow/" + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }() // read only: a close error loses nothing
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		e := &Error{Status: resp.StatusCode}
		_ = json.Unmarshal(raw, e)
		return e
	}
	if out == nil || len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// ExperimentByName returns the id of the named experiment (NotFound if none).
func (c *Client) ExperimentByName(ctx context.Context, name string) (string, error) {
	var out struct {
		Experiment struct {
			ExperimentID string `json:"experiment_id"`
		} `json:"experiment"`
	}
	err := c.do(ctx, http.MethodGet, "experiments/get-by-name", url.Values{"experiment_name": {name}}, nil, &out)
	return out.Experiment.ExperimentID, err
}

// CreateExperiment creates an experiment and returns its id.
func (c *Client) CreateExperiment(ctx context.Context, name string, tags []Tag) (string, error) {
	var out struct {
		ExperimentID string `json:"experiment_id"`
	}
	err := c.do(ctx, http.MethodPost, "experiments/create", nil, map[string]any{"name": name, "tags": tags}, &out)
	return out.ExperimentID, err
}

// EnsureExperiment finds the named experiment or creates it; a concurrent
// creator's RESOURCE_ALREADY_EXISTS is answered by finding it again.
func (c *Client) EnsureExperiment(ctx context.Context, name string, tags []Tag) (string, error) {
	id, err := c.ExperimentByName(ctx, name)
	if err == nil || !NotFound(err) {
		return id, err
	}
	id, err = c.CreateExperiment(ctx, name, tags)
	if e, ok := err.(*Error); ok && e.ErrorCode == "RESOURCE_ALREADY_EXISTS" {
		return c.ExperimentByName(ctx, name)
	}
	return id, err
}

// CreateRun starts a run and returns its id.
func (c *Client) CreateRun(ctx context.Context, experimentID, runName string, start time.Time, tags []Tag) (string, error) {
	var out struct {
		Run struct {
			Info struct {
				RunID string `json:"run_id"`
			} `json:"info"`
		} `json:"run"`
	}
	err := c.do(ctx, http.MethodPost, "runs/create", nil, map[string]any{"experiment_id": experimentID, "run_name": runName,
		"start_time": start.UnixMilli(), "tags": tags}, &out)
	return out.Run.Info.RunID, err
}

// MLflow's documented limits of one runs/log-batch request.
const (
	maxBatchMetrics  = 1000
	maxBatchParams   = 100
	maxBatchTags     = 100
	maxBatchEntities = 1000 // metrics, params and tags together
)

// batch is the content of one runs/log-batch request.
type batch struct {
	Params  []Param  // at most maxBatchParams
	Metrics []Metric // at most maxBatchMetrics
	Tags    []Tag    // at most maxBatchTags
}

// splitBatch cuts params, metrics and tags, in order, into batches that each
// respect MLflow's per-request limits; params and tags go first, metrics
// fill what each batch has left. It answers at least one (maybe empty) batch.
func splitBatch(params []Param, metrics []Metric, tags []Tag) []batch {
	var out []batch
	for first := true; first || len(params)+len(metrics)+len(tags) > 0; first = false {
		np, nt := min(len(params), maxBatchParams), min(len(tags), maxBatchTags)
		nm := min(len(metrics), maxBatchMetrics, maxBatchEntities-np-nt)
		out = append(out, batch{Params: params[:np:np], Metrics: metrics[:nm:nm], Tags: tags[:nt:nt]})
		params, metrics, tags = params[np:], metrics[nm:], tags[nt:]
	}
	return out
}

// LogBatch logs params and metrics to a run, all of them, in as many
// runs/log-batch requests as MLflow's per-request limits (1000 metrics,
// 100 params, 100 tags, 1000 entities) require. It stops at the first
// refused request; the batches before it stay logged.
func (c *Client) LogBatch(ctx context.Context, runID string, params []Param, metrics []Metric) error {
	for _, b := range splitBatch(params, metrics, nil) {
		body := map[string]any{"run_id": runID, "params": nonNil(b.Params), "metrics": nonNil(b.Metrics), "tags": nonNil(b.Tags)}
		if err := c.do(ctx, http.MethodPost, "runs/log-batch", nil, body, nil); err != nil {
			return err
		}
	}
	return nil
}

// nonNil makes a nil slice encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// FinishRun ends a run with status FINISHED at end.
func (c *Client) FinishRun(ctx context.Context, runID string, end time.Time) error {
	return c.do(ctx, http.MethodPost, "runs/update", nil, map[string]any{"run_id": runID, "status": "FINISHED", "end_time": end.UnixMilli()}, nil)
}
