package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// TestFlyLab_CancelBeforeCommitPublishesNothing performs the contract's
// cancellation on both transports (the official TypeScript client's abort
// is in TestFlyLab_MCPInteropWithOfficialTypeScriptClient):
//   - over REST, the caller drops a run_fly_simulation while it simulates;
//   - over MCP, a notifications/cancelled reaches the api before the
//     save_fly_evidence it names (on a stateless endpoint behind a load
//     balancer it may reach another replica first).
//
// Either way the call aborts (the MCP answer is the typed ABORTED failure
// named AbortError), the revision does not move, the batch or bundle is
// not published (staged rows only), and retrying the same operation then
// commits and publishes it once.
func TestFlyLab_CancelBeforeCommitPublishesNothing(t *testing.T) {
	dbURL := modelstest.SchemaURL(t)
	if dbURL == "" {
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	s := StartStack(t, StackOptions{Env: map[string]string{"GATEHOUSE_DATABASE_URL": dbURL}})
	db, err := models.Open(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	c := loadFlyContract(t)
	key := mintAgentKey(t, s, "cancel-agent", true)
	call := func(tool string, args any) map[string]any { return flyTool(t, s, c, key, tool, args) }
	sid, hyp, draftRev := draftMDNHypothesis(t, call)
	args := designArgs(sid, draftRev, hyp, 9)
	args["replicates"], args["trial_duration_ms"], args["duration_ms"] = 12, 8000, 4000
	exp := mustOK(t, call("design_stimulation_trial", args))["experiment"].(map[string]any)
	expID, hash := exp["id"].(string), exp["protocolHash"].(string)
	if r := s.Do(t, http.MethodPost, "/operator/v1/flylab/experiments/"+expID+"/approve", s.OperatorToken,
		map[string]any{"protocol_hash": hash}); r.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	approved := call("inspect_flylab_state", nil)["state_revision"]
	run := map[string]any{"page_session_id": sid, "expected_state_revision": approved, "experiment_id": expID,
		"approved_protocol_hash": hash, "operation_id": "cancel-run"}

	// REST: drop the call while the simulation heartbeats.
	ctx, cancel := context.WithCancel(context.Background())
	dropped := make(chan error, 1)
	go func() { dropped <- postTool(ctx, s.APIURL, key, wf.ToolRun, run) }()
	tc := s.Client(t)
	for deadline := time.Now().Add(time.Minute); !heartbeating(tc, sid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the simulation never heartbeated")
		}
	}
	cancel()
	if err := <-dropped; err == nil {
		t.Fatal("the dropped call answered")
	}
	settled := settledState(t, call)
	if settled["state_revision"] != approved || settled["data"].(map[string]any)["agent_context"].(map[string]any)["artifacts"].(map[string]any)["batch_id"] != nil {
		t.Fatalf("a run dropped before its commit changed the session: rev %v (was %v)", settled["state_revision"], approved)
	}
	if n := publishedRows(t, db, &flymodels.Batch{}, sid); n != 0 {
		t.Fatalf("%d batches published by a dropped run", n)
	}
	ran := mustOK(t, call(wf.ToolRun, run))
	if n := publishedRows(t, db, &flymodels.Batch{}, sid); n != 1 {
		t.Fatalf("retrying the operation published %d batches, want 1", n)
	}

	// Analyze and compare, then save with a cancel that overtakes it.
	ranEnv := call("inspect_flylab_state", nil)
	an := mustOK(t, call(wf.ToolAnalyze, map[string]any{"page_session_id": sid, "expected_state_revision": ranEnv["state_revision"],
		"batch_id": ran["id"], "metrics": mdnPanel}))["analysis"].(map[string]any)["id"]
	cmpEnv := call(wf.ToolCompare, map[string]any{"page_session_id": sid, "expected_state_revision": call("inspect_flylab_state", nil)["state_revision"],
		"analysis_ids": []any{an}, "objective_metric": "backward_distance_mm", "objective": "maximize"})
	comparison := mustOK(t, cmpEnv)["comparison"].(map[string]any)["id"]
	save := map[string]any{"page_session_id": sid, "expected_state_revision": cmpEnv["state_revision"], "scope": "experiment",
		"hypothesis_id": hyp, "experiment_id": expID, "batch_ids": []any{ran["id"]}, "analysis_ids": []any{an},
		"comparison_id": comparison, "operation_id": "cancel-save"}
	mcpPost(t, s.APIURL, key, map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]any{"requestId": 4242, "reason": "the user stopped the agent"}})
	for deadline := time.Now().Add(30 * time.Second); !signalled(t, tc, sid, wf.CancelSignal); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("notifications/cancelled never reached the session")
		}
	}
	var answer struct {
		Result struct {
			IsError           bool           `json:"isError"`
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	raw := mcpPost(t, s.APIURL, key, map[string]any{"jsonrpc": "2.0", "id": 4242, "method": "tools/call",
		"params": map[string]any{"name": wf.ToolSave, "arguments": save}})
	if err := json.Unmarshal(raw, &answer); err != nil {
		t.Fatalf("tools/call answer %s: %v", raw, err)
	}
	env := answer.Result.StructuredContent
	e, _ := env["error"].(map[string]any)
	details, _ := e["details"].(map[string]any)
	if !answer.Result.IsError || env["ok"] != false || e["code"] != wf.CodeAborted || details["name"] != wf.AbortErrorName ||
		env["state_revision"] != cmpEnv["state_revision"] || env["page_session_id"] != sid {
		t.Fatalf("cancelled save answered %v, want the ABORTED failure of the session at its revision", env)
	}
	if n := publishedRows(t, db, &flymodels.EvidenceBundle{}, sid); n != 0 {
		t.Fatalf("%d bundles published by a cancelled save", n)
	}
	saved := mustOK(t, call(wf.ToolSave, save))
	if n := publishedRows(t, db, &flymodels.EvidenceBundle{}, sid); n != 1 {
		t.Fatalf("saving again published %d bundles, want 1", n)
	}
	if r := s.Do(t, http.MethodGet, "/v1/flylab/evidence/"+saved["bundle"].(map[string]any)["id"].(string), key, nil); r.Status != http.StatusOK {
		t.Fatalf("the saved bundle is not downloadable: %d", r.Status)
	}
	recordHistory(t, s, wf.SessionWorkflowID(sid), "session_cancelled")
}

// settledState polls inspect_flylab_state until no tool is running.
func settledState(t *testing.T, call func(tool string, args any) map[string]any) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		env := call("inspect_flylab_state", nil)
		ctx := env["data"].(map[string]any)["agent_context"].(map[string]any)
		if ctx["agent_status"] != "running" {
			return env
		}
		if time.Now().After(deadline) {
			t.Fatal("the session still runs a tool after its caller cancelled")
		}
	}
}

// publishedRows counts a session's published (not staged) rows of model.
func publishedRows(t *testing.T, db *gorm.DB, model any, sessionID string) int64 {
	t.Helper()
	var n int64
	if err := db.Model(model).Where("session_id = ? AND staged = ?", sessionID, false).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// postTool posts one REST tool call with ctx; it returns ctx's error when
// the caller drops it.
func postTool(ctx context.Context, base, key, tool string, args any) error {
	body, _ := json.Marshal(args)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/flylab/tools/"+tool, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	_, err = io.ReadAll(resp.Body)
	return err
}

// mcpPost sends one JSON-RPC message to the stateless FlyLab MCP endpoint
// and returns the JSON of its answer (the data line of an event stream),
// or nothing for a notification.
func mcpPost(t *testing.T, base, key string, msg any) []byte {
	t.Helper()
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp/flylab", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("MCP POST %s: %d %s", body, resp.StatusCode, raw)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(data, `"id"`) {
			return []byte(data)
		}
	}
	return raw
}

// signalled reports whether the session workflow received a signal named
// name.
func signalled(t *testing.T, c client.Client, sid, name string) bool {
	t.Helper()
	it := c.GetWorkflowHistory(context.Background(), wf.SessionWorkflowID(sid), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return false
		}
		if a := ev.GetWorkflowExecutionSignaledEventAttributes(); a != nil && a.GetSignalName() == name {
			return true
		}
	}
	return false
}
