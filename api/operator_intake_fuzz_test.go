package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	flylabmodels "github.com/gatehouse/gatehouse/models/flylab"
	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
	researchmodels "github.com/gatehouse/gatehouse/models/research"
)

// downTemporal is a Temporal client whose server cannot be reached: every
// call the API makes on a request path fails the way a real client does
// when the frontend is down (serviceerror.Unavailable). The harness of
// newFuzzServer has no client at all, so an intake that gets as far as
// Temporal would call a method on a nil interface and answer a recovered
// 500; with this client such an intake answers what production answers
// with Temporal down. A method not overridden here panics (nil embedded
// interface), which the fuzz targets report as a 500.
type downTemporal struct{ client.Client }

func errTemporalDown() error { return serviceerror.NewUnavailable("temporal is down (fuzz stub)") }

func (downTemporal) ExecuteWorkflow(context.Context, client.StartWorkflowOptions, any, ...any) (client.WorkflowRun, error) {
	return nil, errTemporalDown()
}

func (downTemporal) SignalWorkflow(context.Context, string, string, string, any) error {
	return errTemporalDown()
}

func (downTemporal) SignalWithStartWorkflow(context.Context, string, string, any, client.StartWorkflowOptions, any, ...any) (client.WorkflowRun, error) {
	return nil, errTemporalDown()
}

func (downTemporal) QueryWorkflow(context.Context, string, string, string, ...any) (converter.EncodedValue, error) {
	return nil, errTemporalDown()
}

func (downTemporal) UpdateWorkflow(context.Context, client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	return nil, errTemporalDown()
}

func (downTemporal) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	return nil, errTemporalDown()
}

func (downTemporal) GetWorkflow(_ context.Context, workflowID, runID string) client.WorkflowRun {
	return downRun{id: workflowID, runID: runID}
}

func (downTemporal) CancelWorkflow(context.Context, string, string) error { return errTemporalDown() }

func (downTemporal) TerminateWorkflow(context.Context, string, string, string, ...any) error {
	return errTemporalDown()
}

// downRun is the handle GetWorkflow returns: waiting on it fails.
type downRun struct{ id, runID string }

func (r downRun) GetID() string    { return r.id }
func (r downRun) GetRunID() string { return r.runID }
func (downRun) Get(context.Context, any) error {
	return errTemporalDown()
}
func (downRun) GetWithOptions(context.Context, any, client.WorkflowRunGetOptions) error {
	return errTemporalDown()
}

// newDownTemporalFuzzServer is newFuzzServer with downTemporal as the
// Temporal client.
func newDownTemporalFuzzServer(tb testing.TB) *fuzzServer {
	tb.Helper()
	return newFuzzServerWith(tb, downTemporal{})
}

// errorCode is the error.code of a REST error body ("" when there is none).
func errorCode(body []byte) string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error.Code
}

// post sends body to path with token and the extra headers and returns the
// recorded answer.
func (f *fuzzServer) post(path, token string, body []byte, header http.Header) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(body)))
	// A loopback Host, as a dev client sends: the MCP routes refuse
	// httptest's example.com (DNS-rebinding protection, rest.GuardHosts).
	req.Host = "127.0.0.1:8080"
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	rec := httptest.NewRecorder()
	f.srv.Engine.ServeHTTP(rec, req)
	return rec
}

// expect posts body and checks the answer: never a 5xx except a 503 whose
// error code is in allowed503 (a dependency the endpoint truly needs is
// absent), and a 4xx leaves every table as it was.
func (f *fuzzServer) expect(t *testing.T, path, token string, body []byte, header http.Header, allowed503 ...string) *httptest.ResponseRecorder {
	t.Helper()
	before := f.rows(t)
	rec := f.post(path, token, body, header)
	if rec.Code >= 500 {
		code := errorCode(rec.Body.Bytes())
		ok := false
		for _, a := range allowed503 {
			ok = ok || (rec.Code == http.StatusServiceUnavailable && code == a)
		}
		if !ok {
			t.Fatalf("POST %s answered %d for %q: %s", path, rec.Code, body, rec.Body)
		}
	}
	if rec.Code >= 400 && rec.Code < 500 {
		for table, n := range f.rows(t) {
			if n != before[table] {
				t.Fatalf("POST %s rejected %q (%d) but table %s went from %d to %d rows", path, body, rec.Code, table, before[table], n)
			}
		}
	}
	return rec
}

// idempotencyKeys are the Idempotency-Key headers an enqueue is sent with.
var idempotencyKeys = []string{"", "k1", "k2", strings.Repeat("k", 300)}

// FuzzOperatorRolloutsEnqueue: no body makes POST /operator/v1/rollouts
// panic or answer a 5xx other than 503 temporal_unavailable (a valid
// enqueue stores its rollout, then cannot start the workflow with Temporal
// down, and says so), and a refused enqueue (4xx) stores nothing.
func FuzzOperatorRolloutsEnqueue(f *testing.F) {
	for i, s := range []string{
		`{"rollouts":[{"turn_input":"hello"}]}`,
		`{"rollouts":[{"turn_input":"a","deadline_s":60,"task_id":"t","metadata":{"k":"v"},"max_attempts":5},{"turn_input":""}]}`,
		`{"rollouts":[]}`, `{"rollouts":[{}]}`, `{"rollouts":[{"turn_input":"a","metadata":[1]}]}`,
		`{"rollouts":[{"turn_input":"a","task_id":""}]}`, `{"rollouts":[{"turn_input":"a","deadline_s":1e400}]}`,
		`{"rollouts":[{"turn_input":"a","deadline_s":0.5}]}`, `{"rollouts":[{"turn_input":"a","max_attempts":101}]}`,
		`{"rollouts":[{"turn_input":"a","max_attempts":1.5}]}`, `{"rollouts":[{"turn_input":"a","metadata":"x"}]}`,
		`{"rollouts":[{"turn_input":"a","deadline_s":NaN}]}`, `[`, `null`, ``, "\x00\xff",
		`{"rollouts":` + strings.Repeat(`[`, 300) + `}`,
	} {
		f.Add(uint8(i), []byte(s))
	}
	fs := newDownTemporalFuzzServer(f)
	f.Fuzz(func(t *testing.T, key uint8, body []byte) {
		h := http.Header{}
		if k := idempotencyKeys[int(key)%len(idempotencyKeys)]; k != "" {
			h.Set("Idempotency-Key", k)
		}
		rec := fs.expect(t, "/operator/v1/rollouts", fs.creds.operator, body, h, "temporal_unavailable")
		checkRolloutAnswer(t, rec, body)
	})
}

// checkRolloutAnswer: a 201 lists rollout ids that are stored.
func checkRolloutAnswer(t *testing.T, rec *httptest.ResponseRecorder, body []byte) {
	t.Helper()
	if rec.Code != http.StatusCreated {
		return
	}
	var got struct {
		IDs []string `json:"rollout_ids"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || len(got.IDs) == 0 {
		t.Fatalf("201 for %q without rollout ids: %s", body, rec.Body)
	}
}

// seedTurns stores production turns for from-turns to replay: a/t1 and
// a/t2 have input text, a/blank has none.
func seedTurns(tb testing.TB, fs *fuzzServer) {
	tb.Helper()
	in := func(s string) *string { return &s }
	turns := []fwmodels.Turn{
		{AgentID: "a", TurnID: "t1", InputText: in("replay me"), CredentialID: "seed", ReceivedAt: time.Now()},
		{AgentID: "a", TurnID: "t2", InputText: in(""), TaskID: in("task"), CredentialID: "seed", ReceivedAt: time.Now()},
		{AgentID: "a", TurnID: "blank", CredentialID: "seed", ReceivedAt: time.Now()},
	}
	if _, _, err := fwmodels.InsertTurns(context.Background(), fs.db, turns); err != nil {
		tb.Fatal(err)
	}
}

// FuzzOperatorRolloutsFromTurns: no body makes POST
// /operator/v1/rollouts/from-turns panic or answer a 5xx other than 503
// temporal_unavailable, and a refused request (4xx: malformed, unknown
// turn, turn without input, bad deadline or attempts) stores nothing.
func FuzzOperatorRolloutsFromTurns(f *testing.F) {
	for i, s := range []string{
		`{"turns":[{"agent_id":"a","turn_id":"t1"}]}`,
		`{"turns":[{"agent_id":"a","turn_id":"t1"},{"agent_id":"a","turn_id":"t2"}],"deadline_s":30,"max_attempts":2}`,
		`{"turns":[{"agent_id":"a","turn_id":"t1"},{"agent_id":"a","turn_id":"blank"}]}`,
		`{"turns":[{"agent_id":"a","turn_id":"nope"}]}`, `{"turns":[]}`, `{"turns":[{}]}`,
		`{"turns":[{"agent_id":"a","turn_id":"t1"}],"deadline_s":0}`, `{"turns":[{"agent_id":"a","turn_id":"t1"}],"max_attempts":0}`,
		`{"turns":[{"agent_id":1,"turn_id":"t1"}]}`, `{"turns":{"agent_id":"a"}}`, `[`, `null`, ``, "\xff",
	} {
		f.Add(uint8(i), []byte(s))
	}
	fs := newDownTemporalFuzzServer(f)
	seedTurns(f, fs)
	f.Fuzz(func(t *testing.T, key uint8, body []byte) {
		h := http.Header{}
		if k := idempotencyKeys[int(key)%len(idempotencyKeys)]; k != "" {
			h.Set("Idempotency-Key", k)
		}
		rec := fs.expect(t, "/operator/v1/rollouts/from-turns", fs.creds.operator, body, h, "temporal_unavailable")
		checkRolloutAnswer(t, rec, body)
	})
}

// flyLabExperimentIDs are the experiment ids approve and reject are sent
// to: exp_wait awaits approval of flyLabProtocolHash, exp_done is decided
// (seedFlyLabExperiments), the others are not stored.
var flyLabExperimentIDs = []string{"exp_wait", "exp_done", "exp_1", "x", "%2e%2e", "exp_" + strings.Repeat("0", 64)}

var flyLabProtocolHash = "sha256:" + strings.Repeat("ab", 32)

// seedFlyLabExperiments stores exp_wait (awaiting approval) and exp_done
// (approved). A decision on exp_wait that passes validation signals the
// experiment workflow, which fails with Temporal down (503 unavailable).
func seedFlyLabExperiments(tb testing.TB, fs *fuzzServer) {
	tb.Helper()
	for _, e := range []flylabmodels.Experiment{
		{ID: "exp_wait", SessionID: "session_1", HypothesisID: "hyp_1", Status: flylabmodels.StatusAwaitingApproval,
			ProtocolHash: flyLabProtocolHash, SeedManifestHash: flyLabProtocolHash, Design: "{}"},
		{ID: "exp_done", SessionID: "session_1", HypothesisID: "hyp_1", Status: flylabmodels.StatusApproved,
			ProtocolHash: flyLabProtocolHash, SeedManifestHash: flyLabProtocolHash, Design: "{}"},
	} {
		if err := fs.db.Create(&e).Error; err != nil {
			tb.Fatal(err)
		}
	}
}

// FuzzOperatorFlyLabDecision: no body makes POST
// /operator/v1/flylab/experiments/:id/approve or /reject panic or answer
// 5xx other than 503 unavailable (a valid decision must signal Temporal,
// which is down here), and every refusal (4xx) stores nothing.
func FuzzOperatorFlyLabDecision(f *testing.F) {
	hash := flyLabProtocolHash
	for i, s := range []string{
		`{"protocol_hash":"` + hash + `"}`, `{"reason":"unsafe drive"}`, `{"protocol_hash":"sha256:00"}`, `{"reason":""}`,
		`{"reason":"` + strings.Repeat("r", 1001) + `"}`, `{"protocol_hash":"` + hash + `","extra":1}`, `{"reason":7}`,
		`{}`, `[`, `null`, ``, "\x00", `{"protocol_hash":"sha256:` + strings.Repeat("cd", 32) + `"}`,
	} {
		f.Add(uint8(i), []byte(s))
	}
	fs := newDownTemporalFuzzServer(f)
	seedFlyLabExperiments(f, fs)
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		action := "approve"
		if which&1 == 1 {
			action = "reject"
		}
		id := flyLabExperimentIDs[int(which>>1)%len(flyLabExperimentIDs)]
		fs.expect(t, "/operator/v1/flylab/experiments/"+id+"/"+action, fs.creds.operator, body, nil, "unavailable")
	})
}

// seedReviewRequests stores review requests a verdict can be sent to:
// rr_open and rr_open_exp are open human reviews (design, experiment) of
// an experiment whose workflow a well-formed verdict must query (Temporal
// is down: 503 unavailable, nothing recorded), rr_expired has expired,
// rr_done is submitted, rr_agent is for an agent reviewer.
func seedReviewRequests(tb testing.TB, fs *fuzzServer) []string {
	tb.Helper()
	now := time.Now()
	base := researchmodels.ReviewRequest{ProjectID: "p", TargetType: "experiment", TargetID: "ex_missing", Kind: "design",
		Role: "human", ProducerSessionID: "s", SnapshotToken: "t", SnapshotJSON: "{}", Status: researchmodels.ReviewRequested,
		ExpiresAt: now.Add(time.Hour)}
	var ids []string
	for i, mod := range []func(*researchmodels.ReviewRequest){
		func(r *researchmodels.ReviewRequest) { r.ID = "rr_open" },
		func(r *researchmodels.ReviewRequest) { r.ID, r.Kind = "rr_open_exp", "experiment" },
		func(r *researchmodels.ReviewRequest) { r.ID, r.ExpiresAt = "rr_expired", now.Add(-time.Hour) },
		func(r *researchmodels.ReviewRequest) { r.ID, r.Status = "rr_done", researchmodels.ReviewSubmitted },
		func(r *researchmodels.ReviewRequest) { r.ID, r.Role = "rr_agent", "agent" },
	} {
		r := base
		mod(&r)
		r.CapabilityHash = strings.Repeat(string(rune('a'+i)), 64)
		if err := fs.db.Create(&r).Error; err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	return ids
}

// FuzzOperatorResearchVerdict: no body makes POST
// /operator/v1/research/reviews/:id/verdict panic or answer 5xx, and
// every refusal (4xx) stores nothing. The only 5xx allowed is 503
// unavailable for a verdict on an open request, whose experiment state
// lives in Temporal; every other request ends at validation, not_found,
// forbidden, expired or conflict without Temporal.
func FuzzOperatorResearchVerdict(f *testing.F) {
	for i, s := range []string{
		`{"verdict":"pass","synopsis":"looks right"}`, `{"verdict":"needs_changes","synopsis":"s","return_to":"design","notes":"n"}`,
		`{"verdict":"fail","synopsis":""}`, `{"verdict":"maybe","synopsis":"s"}`, `{"synopsis":"s"}`, `{"verdict":1}`,
		`{}`, `[`, `null`, ``, "\xff\xfe", `{"verdict":"fail","synopsis":"no","return_to":"nowhere"}`,
	} {
		f.Add(uint8(i), []byte(s))
	}
	fs := newDownTemporalFuzzServer(f)
	ids := append(seedReviewRequests(f, fs), "rr_1", "rr_"+strings.Repeat("f", 40))
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		id := ids[int(which)%len(ids)]
		var allowed503 []string
		if strings.HasPrefix(id, "rr_open") {
			// A well-formed verdict on an open request reads the
			// experiment workflow's state from Temporal, which is down.
			allowed503 = []string{"unavailable"}
		}
		fs.expect(t, "/operator/v1/research/reviews/"+id+"/verdict", fs.creds.operator, body, nil, allowed503...)
	})
}
