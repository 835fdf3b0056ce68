package e2e

import (
	"context"
	"net/http"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	science "github.com/gatehouse/gatehouse/flylab"
)

type flyBearer struct{ token string }

func (b flyBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func percentiles(d []time.Duration) (time.Duration, time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2], d[len(d)*99/100]
}

// TestFlyLab_MCPOverheadBenchmark reports p50/p99 of find_fly_circuits
// through MCP (Update + activity + ledger write) against the same search
// in-process. Run with GATEHOUSE_BENCH=1.
func TestFlyLab_MCPOverheadBenchmark(t *testing.T) {
	if os.Getenv("GATEHOUSE_BENCH") != "1" {
		t.Skip("set GATEHOUSE_BENCH=1")
	}
	s := StartStack(t, StackOptions{})
	ctx := context.Background()
	cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	sess, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.APIURL + "/mcp/flylab",
		HTTPClient: &http.Client{Transport: flyBearer{s.APIKey}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "inspect_flylab_state", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	env := res.StructuredContent.(map[string]any)
	sid, rev := env["page_session_id"].(string), env["state_revision"].(float64)
	const n = 200
	var viaMCP, viaInspect, inProc []time.Duration
	for range n {
		start := time.Now()
		r, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "find_fly_circuits", Arguments: map[string]any{
			"page_session_id": sid, "expected_state_revision": rev, "query": "backward walking"}})
		viaMCP = append(viaMCP, time.Since(start))
		if err != nil || r.IsError {
			t.Fatalf("call: %v %v", err, r)
		}
		rev = r.StructuredContent.(map[string]any)["state_revision"].(float64)
		start = time.Now()
		if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "inspect_flylab_state", Arguments: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		viaInspect = append(viaInspect, time.Since(start))
		start = time.Now()
		if _, err := science.SearchCircuits(science.SearchQuery{Query: "backward walking"}); err != nil {
			t.Fatal(err)
		}
		inProc = append(inProc, time.Since(start))
	}
	m50, m99 := percentiles(viaMCP)
	i50, i99 := percentiles(viaInspect)
	p50, p99 := percentiles(inProc)
	t.Logf("find_fly_circuits via MCP: p50 %v p99 %v; inspect via MCP: p50 %v p99 %v; SearchCircuits in-process: p50 %v p99 %v",
		m50, m99, i50, i99, p50, p99)
}
