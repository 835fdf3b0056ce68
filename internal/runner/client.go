// Package runner is the agent side of the flywheel contract: it claims
// rollouts, runs the agent command once per rollout with its configuration
// only in the subprocess environment, heartbeats the lease, enforces the
// deadline, and posts the RolloutOutput.
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// RolloutRequest is the contract's RolloutRequest as the runner reads it.
type RolloutRequest struct {
	RolloutID      string          `json:"rollout_id"`
	TurnInput      string          `json:"turn_input"`
	LLMURL         string          `json:"llm_url"`
	APIKey         string          `json:"api_key"`
	ArtifactsDir   string          `json:"artifacts_dir"`
	DeadlineTS     float64         `json:"deadline_ts"`
	LeaseToken     *string         `json:"lease_token"`
	LeaseExpiresTS *float64        `json:"lease_expires_ts"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
}

// claimResponse is the contract's ClaimResponse.
type claimResponse struct {
	Rollouts    []RolloutRequest `json:"rollouts"`
	PollAfterMS int64            `json:"poll_after_ms"`
}

// StatusError is a non-2xx answer from the server.
type StatusError struct {
	Status int
	Body   string
}

func (e *StatusError) Error() string { return fmt.Sprintf("server answered %d: %s", e.Status, e.Body) }

// client speaks the flywheel endpoints.
type client struct {
	base     string
	agentKey string
	http     *http.Client
}

func (c *client) post(ctx context.Context, path, bearer string, body any, headers map[string]string) ([]byte, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.base, "/")+path, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }() // read only: a close error loses nothing
	out, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return out, &StatusError{Status: resp.StatusCode, Body: string(out)}
	}
	return out, nil
}

func (c *client) claim(ctx context.Context, n int, leaseS float64) (claimResponse, error) {
	body := map[string]any{"max_rollouts": n}
	if leaseS > 0 {
		body["lease_s"] = leaseS
	}
	raw, err := c.post(ctx, "/flywheel/claim", c.agentKey, body, nil)
	if err != nil {
		return claimResponse{}, err
	}
	var cr claimResponse
	return cr, json.Unmarshal(raw, &cr)
}

func leaseHeaders(r RolloutRequest) map[string]string {
	if r.LeaseToken == nil {
		return nil
	}
	return map[string]string{"Flywheel-Lease-Token": *r.LeaseToken}
}

// heartbeat extends the lease; its answer is deliberately not parsed (the
// pace was fixed at claim).
func (c *client) heartbeat(ctx context.Context, r RolloutRequest) error {
	_, err := c.post(ctx, "/flywheel/rollouts/"+r.RolloutID+"/heartbeat", r.APIKey, map[string]any{}, leaseHeaders(r))
	return err
}

func (c *client) output(ctx context.Context, r RolloutRequest, out map[string]any) error {
	_, err := c.post(ctx, "/flywheel/rollouts/"+r.RolloutID+"/output", r.APIKey, out, leaseHeaders(r))
	return err
}
