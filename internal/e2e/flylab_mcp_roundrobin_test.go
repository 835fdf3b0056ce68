package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse/gatehouse/internal/prodlike"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestFlyLab_MCPBehindRoundRobinWithoutAffinity puts two api replicas (the
// dev stack's and an `api` role process on the same PostgreSQL and
// Temporal) behind a front that alternates between them with no session
// affinity, as a cloud load balancer does, and runs the FlyLab pipeline
// through it with the go-sdk's own MCP client: connect, list, every tool,
// and run_fly_simulation's progress notifications, with requests landing
// on both replicas.
func TestFlyLab_MCPBehindRoundRobinWithoutAffinity(t *testing.T) {
	t.Parallel()
	dbURL := modelstest.SchemaURL(t)
	if dbURL == "" {
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	s := StartStack(t, StackOptions{Env: map[string]string{"GATEHOUSE_DATABASE_URL": dbURL}})
	env := s.WorkerEnv(dbURL)
	env["GATEHOUSE_HTTP_ADDR"] = freeAddr(t)
	second := "http://" + env["GATEHOUSE_HTTP_ADDR"]
	StartRoleProcess(t, "api", env)
	waitFor(t, 60*time.Second, func() bool {
		r, err := http.Get(second + "/readyz")
		if err != nil {
			return false
		}
		_ = r.Body.Close()
		return r.StatusCode == http.StatusOK
	})
	front, err := prodlike.NewFront([]string{s.APIURL, second})
	if err != nil {
		t.Fatal(err)
	}
	defer front.Close()

	progress := make(chan float64, 1024)
	client := mcp.NewClient(&mcp.Implementation{Name: "round-robin", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { progress <- r.Params.Progress },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: front.URL + "/mcp/flylab",
		HTTPClient: &http.Client{Transport: bearer{token: s.APIKey, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatalf("connect through the round-robin front: %v", err)
	}
	defer func() { _ = session.Close() }()
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if len(tools.Tools) != 8 {
		t.Fatalf("%d tools, want the contract's 8", len(tools.Tools))
	}

	call := func(name string, args map[string]any, progressToken any) map[string]any {
		t.Helper()
		params := &mcp.CallToolParams{Name: name, Arguments: args}
		if progressToken != nil {
			params.SetProgressToken(progressToken)
		}
		res, err := session.CallTool(ctx, params)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var envl map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &envl); err != nil || res.IsError {
			t.Fatalf("%s: %s (%v)", name, raw, err)
		}
		mustOK(t, envl)
		return envl
	}
	cur := call("inspect_flylab_state", map[string]any{}, nil)
	sid := cur["page_session_id"].(string)
	cur = call("find_fly_circuits", map[string]any{"page_session_id": sid, "expected_state_revision": cur["state_revision"],
		"query": "moonwalker backward walking", "behavior": "backward_walking"}, nil)
	drafted := call("draft_fly_hypothesis", map[string]any{"page_session_id": sid, "expected_state_revision": cur["state_revision"],
		"circuit_id": "circuit_mdn_backward", "claim": "Activating MDN drives backward walking in the model.",
		"predicted_behavior": "backward_walking", "perturbation": "activate", "primary_outcome": "backward_distance_mm",
		"expected_direction": "increase", "controls": []string{"condition_baseline", "condition_sham"},
		"evidence_ids": []string{"E-MDN-ACTIVATION-001"}, "evidence_limitations": []string{"Reduced-order model only."},
		"falsification_criterion": "No increase over sham."}, nil)
	hyp := drafted["data"].(map[string]any)["hypothesis"].(map[string]any)["id"].(string)
	// Long enough (60 runs) for several heartbeats to become progress.
	design := designArgs(sid, drafted["state_revision"], hyp, 7)
	design["replicates"], design["trial_duration_ms"], design["duration_ms"] = 20, 10000, 5000
	designed := call("design_stimulation_trial", design, nil)
	exp := designed["data"].(map[string]any)["experiment"].(map[string]any)
	expID, hash := exp["id"].(string), exp["protocolHash"].(string)
	if r := s.Do(t, http.MethodPost, "/operator/v1/flylab/experiments/"+expID+"/approve", s.OperatorToken,
		map[string]any{"protocol_hash": hash}); r.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	cur = call("inspect_flylab_state", map[string]any{}, nil)
	ran := call("run_fly_simulation", map[string]any{"page_session_id": sid, "expected_state_revision": cur["state_revision"],
		"experiment_id": expID, "approved_protocol_hash": hash, "operation_id": "rr-run-1"}, "rr-progress")
	if ran["data"].(map[string]any)["id"] == nil {
		t.Fatalf("run_fly_simulation answered no batch: %v", ran)
	}
	select {
	case <-progress:
	case <-time.After(5 * time.Second):
		t.Fatal("run_fly_simulation sent no progress notification through the front")
	}
	if served := front.Served(); served[0] == 0 || served[1] == 0 {
		t.Fatalf("the front must have used both replicas: %v requests", served)
	}
}
