package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// TestFlyLabPurged_ReadsAndTheSessionOutliveDeletedWorkflows runs a FlyLab
// pipeline to a saved evidence bundle (and a leased flywheel rollout to its
// output), records every read an agent, the operator or the console makes of them,
// deletes the session, experiment and rollout workflows from Temporal (as
// the namespace's retention eventually does, while missions last weeks),
// and reads everything again: the answers must be the same, and the next
// mutations must continue the same session from its stored revision, not
// from an empty session at revision 1.
func TestFlyLabPurged_ReadsAndTheSessionOutliveDeletedWorkflows(t *testing.T) {
	s := Shared(t)
	start := time.Now()
	rolloutID := purgedRollout(t, s)
	key := consoleMintAgentKey(t, s)
	expID, hash := consoleDesignExperiment(t, s, key)
	consoleApproveOverREST(t, s, expID, hash)
	steps := purgedFollowNextActions(t, s, key)
	saved := consoleData(steps["save_fly_evidence"])
	bundleID, _ := saved["bundle"].(map[string]any)["id"].(string)
	sid, _ := steps["save_fly_evidence"]["page_session_id"].(string)
	console := purgedConsole(t, s)

	before := purgedReads(t, s, key, console, sid, expID, bundleID)
	for name, v := range purgedRolloutReads(t, s, console, rolloutID) {
		before[name] = v
	}
	t.Logf("pipeline and first reads: %s", time.Since(start).Round(time.Millisecond))
	recordHistory(t, s, "flylab-session/"+sid, "session_snapshotted")
	tc := s.Client(t)
	start = time.Now()
	purgeWorkflows(t, tc, "flylab-session/"+sid, "flylab-experiment/"+expID, "rollout/"+rolloutID)
	t.Logf("workflows deleted: %s", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	after := purgedReads(t, s, key, console, sid, expID, bundleID)
	for name, v := range purgedRolloutReads(t, s, console, rolloutID) {
		after[name] = v
	}
	t.Logf("reads after the deletion: %s", time.Since(start).Round(time.Millisecond))
	for name, want := range before {
		if got := after[name]; want == nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s changed once the workflows were deleted:\nbefore: %s\nafter:  %s", name, truncate([]byte(purgedShow(want))), truncate([]byte(purgedShow(got))))
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// The next mutations restart the session workflow from its stored
	// state: the compared analyses are still the session's, and the
	// revision moves on from the stored one.
	stored := int(before["inspect (REST)"].(map[string]any)["state_revision"].(float64))
	cmpArgs := steps["compare_fly_trials"]["_args"].(map[string]any)
	cmpArgs["expected_state_revision"] = stored
	compared := consoleTool(t, s, key, "compare_fly_trials", cmpArgs)
	if compared["page_session_id"] != sid || compared["previous_state_revision"] != float64(stored) || compared["state_revision"] != float64(stored+1) {
		t.Fatalf("compare after the purge: session %v revision %v -> %v, want %s %d -> %d",
			compared["page_session_id"], compared["previous_state_revision"], compared["state_revision"], sid, stored, stored+1)
	}
	first, again := consoleData(steps["compare_fly_trials"]), consoleData(compared)
	delete(first, "next_action")
	delete(again, "next_action")
	if !reflect.DeepEqual(first, again) {
		t.Fatalf("compare_fly_trials answers differently after the purge:\nbefore: %s\nafter:  %s", truncate([]byte(purgedShow(first))), truncate([]byte(purgedShow(again))))
	}
	ac := consoleData(consoleTool(t, s, key, "inspect_flylab_state", map[string]any{}))["agent_context"].(map[string]any)
	if arts := ac["artifacts"].(map[string]any); arts["evidence_bundle_id"] != bundleID || arts["experiment_id"] != expID {
		t.Fatalf("the restarted session lost its lineage: %v", arts)
	}
	// A search after the saved mission starts a new one in the restarted
	// session: the revision moves on and next_action leaves "complete".
	found := consoleTool(t, s, key, "find_fly_circuits", map[string]any{"page_session_id": sid, "expected_state_revision": stored + 1,
		"query": "moonwalker descending neuron backward walking", "behavior": "backward_walking"})
	if found["page_session_id"] != sid || found["state_revision"] != float64(stored+2) {
		t.Fatalf("find after the purge: session %v revision %v, want %s %d", found["page_session_id"], found["state_revision"], sid, stored+2)
	}
	if next := found["next_action"].(map[string]any); next["name"] != "draft_fly_hypothesis" {
		t.Fatalf("next_action after a new search in a saved session: %v", next)
	}
	recordHistory(t, s, "flylab-session/"+sid, "session_restored")
}

// purgedRollout runs a flywheel rollout to its end through a lease: an
// agent key limited to a project of its own (so no other test's claimer
// takes it) claims it, heartbeats once and posts its output, and its
// workflow closes with the rollout completed and its lease history
// (one lease, one heartbeat, ended by the output) to be read after the
// purge.
func purgedRollout(t *testing.T, s *Stack) string {
	t.Helper()
	project := "purged-e2e-" + randomHex(t)[:12]
	key, _ := mintScoped(t, s, "purged e2e", project)
	id := enqueueOwnedBy(t, s, "purged e2e", map[string]any{"project": project})
	var c claimed
	if r := s.Do(t, http.MethodPost, "/flywheel/claim", key, map[string]any{"max_rollouts": 1, "lease_s": 30}); r.Status != http.StatusOK {
		t.Fatalf("claim: %d %s", r.Status, truncate(r.Body))
	} else {
		r.JSON(t, &c)
	}
	if len(c.Rollouts) != 1 || c.Rollouts[0].RolloutID != id {
		t.Fatalf("claim answered %+v, want %s", c.Rollouts, id)
	}
	ro, lease := c.Rollouts[0], []string{"Flywheel-Lease-Token", c.Rollouts[0].LeaseToken}
	if r := s.Do(t, http.MethodPost, "/flywheel/rollouts/"+id+"/heartbeat", ro.APIKey, nil, lease...); r.Status != http.StatusOK {
		t.Fatalf("heartbeat: %d %s", r.Status, truncate(r.Body))
	}
	if r := s.Do(t, http.MethodPost, "/flywheel/rollouts/"+id+"/output", ro.APIKey,
		map[string]any{"final_text": "done", "tool_calls": []any{}}, lease...); r.Status != http.StatusOK {
		t.Fatalf("output: %d %s", r.Status, truncate(r.Body))
	}
	waitRollout(t, s, id, func(r rolloutRecord) bool { return r.Status == "completed" })
	var rec struct {
		LeaseHistory []struct {
			Epoch      int     `json:"epoch"`
			Heartbeats int     `json:"heartbeats"`
			EndReason  *string `json:"end_reason"`
		} `json:"lease_history"`
	}
	s.Do(t, http.MethodGet, "/operator/v1/rollouts/"+id, s.OperatorToken, nil).JSON(t, &rec)
	if h := rec.LeaseHistory; len(h) != 1 || h[0].Epoch != 1 || h[0].Heartbeats != 1 || h[0].EndReason == nil || *h[0].EndReason != "output" {
		t.Fatalf("lease history before the purge: %+v, want one lease of 1 heartbeat ended by its output", h)
	}
	return id
}

// purgedRolloutReads records the rollout reads: the operator's GET and
// list, and the console's rollout page.
func purgedRolloutReads(t *testing.T, s *Stack, console *http.Client, id string) map[string]any {
	t.Helper()
	list := purgedGet(t, s, "/operator/v1/rollouts?status=completed&limit=1000", s.OperatorToken).(map[string]any)
	page := string(purgedBytes(t, s, console, "/console/rollouts/"+url.PathEscape(id), ""))
	return map[string]any{
		"rollout":         purgedGet(t, s, "/operator/v1/rollouts/"+id, s.OperatorToken),
		"rollout in list": purgedPick(list["rollouts"], "rollout_id", id),
		"console rollout": regexp.MustCompile(`(?s)<main.*</main>`).FindString(page),
	}
}

// purgedFollowNextActions runs run → analyze → compare → save by calling
// exactly the next_action inspect_flylab_state names, and returns each
// tool's envelope with the arguments it was called with under "_args".
func purgedFollowNextActions(t *testing.T, s *Stack, key string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for range 8 {
		ac, _ := consoleData(consoleTool(t, s, key, "inspect_flylab_state", map[string]any{}))["agent_context"].(map[string]any)
		next, _ := ac["next_action"].(map[string]any)
		if next["kind"] == "complete" {
			return out
		}
		tool, _ := next["name"].(string)
		args, _ := next["arguments"].(map[string]any)
		if _, ok := args["operation_id"]; ok {
			args["operation_id"] = "purged-e2e-" + tool
		}
		env := consoleTool(t, s, key, tool, args)
		env["_args"] = args
		out[tool] = env
	}
	t.Fatal("the session did not reach a saved evidence bundle in 8 steps")
	return nil
}

// purgedReads records every read of the session: inspect_flylab_state over
// REST and MCP, the operator's experiment and session reads, the evidence
// download, and the console's session and evidence pages.
func purgedReads(t *testing.T, s *Stack, key string, console *http.Client, sid, expID, bundleID string) map[string]any {
	t.Helper()
	reads := map[string]any{}
	reads["inspect (REST)"] = consoleTool(t, s, key, "inspect_flylab_state", map[string]any{})
	reads["inspect (MCP)"] = purgedInspectMCP(t, s, key)
	reads["experiment"] = purgedGet(t, s, "/operator/v1/flylab/experiments/"+expID, s.OperatorToken)
	list := purgedGet(t, s, "/operator/v1/flylab/experiments", s.OperatorToken).(map[string]any)
	reads["experiment in the list"] = purgedPick(list["experiments"], "experiment_id", expID)
	sessions := purgedGet(t, s, "/operator/v1/flylab/sessions", s.OperatorToken).(map[string]any)
	reads["session in the operator list"] = purgedPick(sessions["sessions"], "page_session_id", sid)
	reads["evidence download"] = string(purgedBytes(t, s, http.DefaultClient, "/v1/flylab/evidence/"+bundleID, key))
	page := string(purgedBytes(t, s, console, "/console/sessions", ""))
	section := regexp.MustCompile(`(?s)<section class="session" id="session-` + regexp.QuoteMeta(sid) + `".*?</section>`).FindString(page)
	if !strings.Contains(section, bundleID) {
		t.Fatalf("the console's sessions page does not show session %s with bundle %s: %s", sid, bundleID, truncate([]byte(section)))
	}
	reads["console session"] = section
	evidence := string(purgedBytes(t, s, console, "/console/evidence/"+url.PathEscape(bundleID), ""))
	reads["console evidence"] = regexp.MustCompile(`(?s)<main.*</main>`).FindString(evidence)
	return reads
}

func purgedShow(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

func purgedGet(t *testing.T, s *Stack, path, token string) any {
	t.Helper()
	r := s.Do(t, http.MethodGet, path, token, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.Status, truncate(r.Body))
	}
	var v any
	r.JSON(t, &v)
	return v
}

// purgedPick is the element of a JSON list whose field is id.
func purgedPick(list any, field, id string) any {
	items, _ := list.([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && m[field] == id {
			return m
		}
	}
	return nil
}

func purgedBytes(t *testing.T, s *Stack, hc *http.Client, path, token string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.APIURL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, truncate(b))
	}
	return b
}

// purgedInspectMCP calls inspect_flylab_state through the MCP endpoint.
func purgedInspectMCP(t *testing.T, s *Stack, key string) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl := mcp.NewClient(&mcp.Implementation{Name: "purged-e2e", Version: "1"}, nil)
	sess, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.APIURL + "/mcp/flylab",
		HTTPClient: &http.Client{Transport: flyBearer{key}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sess.Close() }()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "inspect_flylab_state", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("inspect over MCP: %v %+v", err, res)
	}
	env, _ := res.StructuredContent.(map[string]any)
	if env["ok"] != true {
		t.Fatalf("inspect over MCP failed: %v", env["error"])
	}
	return env
}

// purgedConsole signs an HTTP client in to the console with the operator
// token, as the sign-in form does.
func purgedConsole(t *testing.T, s *Stack) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Jar: jar, Timeout: 60 * time.Second}
	form := string(purgedBytes(t, s, hc, "/console/signin", ""))
	m := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindStringSubmatch(form)
	if m == nil {
		t.Fatalf("no sign-in token in %s", truncate([]byte(form)))
	}
	resp, err := hc.PostForm(s.APIURL+"/console/signin", url.Values{"csrf_token": {m[1]}, "token": {s.OperatorToken}, "next": {"/console/"}})
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("console sign-in: %d", resp.StatusCode)
	}
	return hc
}

// purgeWorkflows deletes workflow executions from Temporal and waits
// until Temporal no longer knows them, as after the namespace's retention.
// The deletions run together: each takes Temporal many seconds.
func purgeWorkflows(t *testing.T, c client.Client, workflowIDs ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, id := range workflowIDs {
		if _, err := c.WorkflowService().DeleteWorkflowExecution(ctx, &workflowservice.DeleteWorkflowExecutionRequest{
			Namespace: "default", WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: id}}); err != nil {
			t.Fatalf("delete %s: %v", id, err)
		}
	}
	for _, id := range workflowIDs {
		for {
			_, err := c.DescribeWorkflowExecution(ctx, id, "")
			var gone *serviceerror.NotFound
			if errors.As(err, &gone) {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("%s is still in Temporal after its deletion: %v", id, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}
