package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/sdk/client"

	science "github.com/gatehouse/gatehouse/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

type flyBearer struct{ token string }

func (b flyBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// latencies collects per-call durations and reports p50/p99 in ms.
type latencies []time.Duration

// p50 is the median duration (0 when empty).
func (l latencies) p50() time.Duration {
	if len(l) == 0 {
		return 0
	}
	sorted := append(latencies(nil), l...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	return sorted[len(sorted)/2]
}

func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	sorted := append(latencies(nil), l...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(sorted[len(sorted)/2]), "p50-ms")
	b.ReportMetric(ms(sorted[len(sorted)*99/100]), "p99-ms")
}

// BenchmarkFlyLab_ToolCall measures a FlyLab tool call through MCP and
// Temporal on the dev stack against the same domain function in-process
// (the floor): find_fly_circuits is a mutation (Update + activity + ledger
// write), inspect_flylab_state a read (Query).
//
//	go test -run '^$' -bench FlyLab_ToolCall -benchtime 200x ./internal/e2e/
func BenchmarkFlyLab_ToolCall(b *testing.B) {
	s := StartStack(b, StackOptions{})
	benchFlyLabToolCall(b, s, s.Client(b), newSelfCPUMeter(), nil)
}

// BenchmarkProductionTopology_FlyLabToolCall is BenchmarkFlyLab_ToolCall
// through the round-robin front of the production topology (Temporal and
// Gatehouse on PostgreSQL, 2 api + 2 workers): consecutive calls of the
// one MCP client land on alternate api replicas.
//
//	go test -run '^$' -bench ProductionTopology_FlyLab -benchtime 200x ./internal/e2e/
func BenchmarkProductionTopology_FlyLabToolCall(b *testing.B) {
	p := startProdStack(b)
	tc, err := client.Dial(client.Options{HostPort: p.Prod.TemporalAddress, Namespace: p.Prod.Namespace, Logger: quietSDKLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer tc.Close()
	benchFlyLabToolCall(b, p.Stack, tc, newCPUMeter(p.Prod), newCommitMeter(b, p.Prod.DatabasePrefix))
}

// benchFlyLabToolCall times the tool calls through MCP; tc reaches the
// stack's Temporal frontend, for the same find sent as the bare Update.
func benchFlyLabToolCall(b *testing.B, s *Stack, tc client.Client, cpu *cpuMeter, commits *commitMeter) {
	ctx := context.Background()
	cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	sess, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.APIURL + "/mcp/flylab",
		HTTPClient: &http.Client{Transport: flyBearer{s.APIKey}}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = sess.Close() }()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "inspect_flylab_state", Arguments: map[string]any{}})
	if err != nil {
		b.Fatal(err)
	}
	env := res.StructuredContent.(map[string]any)
	sid, rev := env["page_session_id"].(string), env["state_revision"].(float64)

	b.Run("find_via_mcp", func(b *testing.B) {
		// The floor is timed in the same loop, call for call, so the
		// ratio compares like with like on a machine whose load changes.
		var l, floor latencies
		defer profilePhase(b, "find")()
		commits.begin()
		cpu.begin("find")
		for b.Loop() {
			start := time.Now()
			r, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "find_fly_circuits", Arguments: map[string]any{
				"page_session_id": sid, "expected_state_revision": rev, "query": "backward walking"}})
			l = append(l, time.Since(start))
			if err != nil || r.IsError {
				b.Fatalf("call: %v %v", err, r)
			}
			rev = r.StructuredContent.(map[string]any)["state_revision"].(float64)
			start = time.Now()
			if _, err := science.SearchCircuits(science.SearchQuery{Query: "backward walking"}); err != nil {
				b.Fatal(err)
			}
			floor = append(floor, time.Since(start))
		}
		cpu.report(b, len(l))
		commits.report(b, len(l))
		l.report(b)
		if f := floor.p50(); f > 0 {
			b.ReportMetric(float64(l.p50())/float64(f), "x-in-process")
		}
	})
	b.Run("find_update_direct", func(b *testing.B) {
		// The session workflow's part of find_fly_circuits alone: the
		// Update the api sends (validator, search and result put, commit,
		// snapshot), from a Temporal client, without the api, MCP or front.
		var l latencies
		commits.begin()
		cpu.begin("find-update")
		for b.Loop() {
			args, err := json.Marshal(map[string]any{"page_session_id": sid, "expected_state_revision": rev, "query": "backward walking"})
			if err != nil {
				b.Fatal(err)
			}
			req := wf.ToolRequest{Tool: wf.ToolFind, Args: args, ExpectedRevision: int(rev)}
			start := time.Now()
			h, err := tc.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: wf.SessionWorkflowID(sid),
				UpdateName: wf.ToolUpdate, Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted})
			var out wf.ToolOutcome
			if err == nil {
				err = h.Get(ctx, &out)
			}
			l = append(l, time.Since(start))
			if err != nil || out.Failure != nil {
				b.Fatalf("update: %v %+v", err, out.Failure)
			}
			rev = float64(out.State.Revision)
		}
		cpu.report(b, len(l))
		commits.report(b, len(l))
		l.report(b)
	})
	b.Run("inspect_via_mcp", func(b *testing.B) {
		var l latencies
		defer profilePhase(b, "inspect")()
		commits.begin()
		cpu.begin("inspect")
		for b.Loop() {
			start := time.Now()
			if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "inspect_flylab_state", Arguments: map[string]any{}}); err != nil {
				b.Fatal(err)
			}
			l = append(l, time.Since(start))
		}
		cpu.report(b, len(l))
		commits.report(b, len(l))
		l.report(b)
	})
	b.Run("idle_20ms", func(b *testing.B) {
		// The stack's own background work (pollers, schedules) in the
		// time of one call, to subtract from the figures above.
		commits.begin()
		cpu.begin("idle")
		n := 0
		for b.Loop() {
			time.Sleep(20 * time.Millisecond)
			n++
		}
		cpu.report(b, n)
		commits.report(b, n)
	})
	b.Run("search_in_process", func(b *testing.B) {
		var l latencies
		for b.Loop() {
			start := time.Now()
			if _, err := science.SearchCircuits(science.SearchQuery{Query: "backward walking"}); err != nil {
				b.Fatal(err)
			}
			l = append(l, time.Since(start))
		}
		l.report(b)
	})
}

// BenchmarkFlyLab_Pipeline measures the whole FlyLab pipeline through the
// tools on the dev stack: inspect, find, draft, design, the operator's
// approval (sent at once, so the human wait is excluded), run, analyze,
// compare and save. Each iteration is a fresh agent (FlyLab keeps one
// session per credential); minting its key is not timed. The
// run_fly_simulation call is also reported on its own.
//
//	go test -run '^$' -bench FlyLab_Pipeline -benchtime 5x ./internal/e2e/
func BenchmarkFlyLab_Pipeline(b *testing.B) { benchFlyLabPipeline(b, StartStack(b, StackOptions{})) }

// BenchmarkProductionTopology_FlyLabPipeline is BenchmarkFlyLab_Pipeline
// through the production topology's round-robin front.
//
//	go test -run '^$' -bench ProductionTopology_FlyLabPipeline -benchtime 5x ./internal/e2e/
func BenchmarkProductionTopology_FlyLabPipeline(b *testing.B) {
	benchFlyLabPipeline(b, startProdStack(b).Stack)
}

func benchFlyLabPipeline(b *testing.B, s *Stack) {
	c := loadFlyContract(b)
	var l, runs latencies
	n := 0
	for b.Loop() {
		n++
		via := withAgentKey(b, s, fmt.Sprintf("bench-pipeline-%d", n))
		start := time.Now()
		a := approveFlyExperiment(b, via, c, nil)
		op := fmt.Sprintf("bench-%d", n)
		runStart := time.Now()
		ran := flyTool(b, via, c, via.APIKey, "run_fly_simulation", a.runArgs(a.rev, op+"-run"))
		runs = append(runs, time.Since(runStart))
		save := saveArgsAfterRun(b, via, c, a, ran, op)
		mustOK(b, flyTool(b, via, c, via.APIKey, "save_fly_evidence", save))
		l = append(l, time.Since(start))
	}
	if p := l.p50(); p > 0 {
		b.ReportMetric(float64(p.Microseconds())/1000, "pipeline-p50-ms")
	}
	if len(runs) > 0 {
		sorted := append(latencies(nil), runs...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
		b.ReportMetric(float64(sorted[len(sorted)/2].Microseconds())/1000, "run-p50-ms")
		b.ReportMetric(float64(sorted[len(sorted)-1].Microseconds())/1000, "run-max-ms")
	}
}
