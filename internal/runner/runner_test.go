package runner

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer hands out one rollout per queued input and records outputs.
type fakeServer struct {
	mu         sync.Mutex
	queue      []string
	heartbeats int
	outputs    map[string]map[string]any
	auth       []string
	// deadline is each rollout's budget (default 3 s); an output after
	// deadline_ts is answered 410 and recorded in late.
	deadline  time.Duration
	late      []string
	deadlines map[string]float64
	// metadata is handed with every rollout when set.
	metadata map[string]any
	// llm records the gateway calls (path and bearer) it answered.
	llm []string
	url string
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.auth = append(f.auth, r.URL.Path+" "+r.Header.Get("Authorization")+" "+r.Header.Get("Flywheel-Lease-Token"))
	switch {
	case strings.HasPrefix(r.URL.Path, "/llm/"):
		f.llm = append(f.llm, r.URL.Path+" "+r.Header.Get("Authorization"))
		if strings.HasSuffix(r.URL.Path, "/fail/chat/completions") || strings.Contains(r.URL.RawQuery, "fail") {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"hi"}}]}`))
	case r.URL.Path == "/flywheel/claim":
		var rs []any
		budget := f.deadline
		if budget == 0 {
			budget = 3 * time.Second
		}
		llmURL := "http://llm.test/llm/lg_x/v1"
		if f.url != "" {
			llmURL = f.url + "/llm/lg_x/v1"
		}
		for _, in := range f.queue {
			exp := float64(time.Now().Add(900*time.Millisecond).UnixMicro()) / 1e6
			name := in
			if len(name) > 32 {
				name = "big"
			}
			ro := map[string]any{"rollout_id": "ro_" + name, "turn_input": in, "llm_url": llmURL,
				"api_key": "rk_" + name, "artifacts_dir": "rollouts/ro_" + name + "/artifacts", "deadline_ts": float64(time.Now().Add(budget).UnixMicro()) / 1e6,
				"lease_token": "lt_" + name, "lease_expires_ts": exp}
			if f.metadata != nil {
				ro["metadata"] = f.metadata
			}
			rs = append(rs, ro)
			if f.deadlines == nil {
				f.deadlines = map[string]float64{}
			}
			f.deadlines["ro_"+name] = ro["deadline_ts"].(float64)
		}
		f.queue = nil
		if rs == nil {
			rs = []any{}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"rollouts": rs, "poll_after_ms": 50})
	case strings.HasSuffix(r.URL.Path, "/heartbeat"):
		f.heartbeats++
		_, _ = w.Write([]byte(`{"lease_expires_ts": 0}`))
	case strings.HasSuffix(r.URL.Path, "/output"):
		id := strings.Split(r.URL.Path, "/")[3]
		if d, ok := f.deadlines[id]; ok && float64(time.Now().UnixMicro())/1e6 >= d {
			f.late = append(f.late, id)
			w.WriteHeader(http.StatusGone)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		f.outputs[strings.Split(r.URL.Path, "/")[3]] = out
		_, _ = w.Write([]byte(`{"accepted": true}`))
	}
}

func run(t *testing.T, f *fakeServer, n int, cmd ...string) {
	t.Helper()
	runCtx(t, context.Background(), f, n, cmd...)
}

func runCtx(t *testing.T, parent context.Context, f *fakeServer, n int, cmd ...string) {
	t.Helper()
	srv := httptest.NewServer(f)
	defer srv.Close()
	f.mu.Lock()
	f.url = srv.URL
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(parent, 20*time.Second)
	defer cancel()
	t.Setenv("GATEHOUSE_SECRET_PROBE", "runner-only")
	if err := Run(ctx, Options{Server: srv.URL, AgentKey: "mk_runner", Command: cmd, WorkDir: t.TempDir(), MaxRollouts: n, Concurrency: 2, InlineFileCap: 16}); err != nil {
		t.Fatal(err)
	}
}

func TestRunner_DrivesAShellAgentAndReportsItsOutput(t *testing.T) {
	f := &fakeServer{queue: []string{"hello", "crash"}, outputs: map[string]map[string]any{}}
	script := `[ "$GATEHOUSE_TURN_INPUT" = crash ] && { echo boom >&2; exit 3; }
echo "answer to $GATEHOUSE_TURN_INPUT via $OPENAI_BASE_URL key $OPENAI_API_KEY secret=${GATEHOUSE_SECRET_PROBE:-none}"
printf small > "$GATEHOUSE_ARTIFACTS_DIR/small.txt"
printf 'this file is larger than sixteen bytes' > "$GATEHOUSE_ARTIFACTS_DIR/big.txt"
sleep 0.5`
	run(t, f, 2, "sh", "-c", script)
	ok := f.outputs["ro_hello"]
	if ok == nil {
		t.Fatalf("no output for ro_hello: %v", f.outputs)
	}
	if ft, _ := ok["final_text"].(string); !strings.HasPrefix(ft, "answer to hello via http://127.0.0.1:") || !strings.HasSuffix(ft, "/v1 key rk_hello secret=none") {
		t.Fatalf("final_text %q (the agent's LLM is the runner's counting proxy; the runner's own GATEHOUSE_* must not reach it)", ok["final_text"])
	}
	if _, present := ok["tool_calls"]; !present || ok["tool_calls"] != nil || ok["exclusion"] != nil {
		t.Fatalf("a runner that cannot observe tool calls reports null, never a list: %v", ok)
	}
	arts := ok["artifacts"].(map[string]any)
	small, _ := arts["small.txt"].(map[string]any)
	if small == nil || small["content"] != "small" {
		t.Fatalf("small file must be inlined: %v", arts)
	}
	if big, _ := arts["big.txt"].(string); len(big) != 64 {
		t.Fatalf("over-cap file keeps the digest form: %v", arts["big.txt"])
	}
	crash := f.outputs["ro_crash"]
	exc, _ := crash["exclusion"].(map[string]any)
	if exc == nil || exc["reason"] != "agent_exit_nonzero" || !strings.Contains(exc["detail"].(string), "boom") {
		t.Fatalf("a crashing agent is excluded agent_exit_nonzero: %v", crash)
	}
	if f.heartbeats == 0 {
		t.Fatal("no heartbeat at a third of a 0.9 s grant during a 0.5 s agent")
	}
	for _, a := range f.auth {
		if strings.Contains(a, "/heartbeat") && !strings.Contains(a, "Bearer rk_") {
			t.Fatalf("heartbeats must use the rollout key: %s", a)
		}
	}
}

func TestRunner_KillsTheAgentAtTheDeadline(t *testing.T) {
	f := &fakeServer{queue: []string{"slow"}, outputs: map[string]map[string]any{}}
	start := time.Now()
	run(t, f, 1, "sh", "-c", "sleep 30")
	if time.Since(start) > 10*time.Second {
		t.Fatal("the agent outlived its deadline")
	}
	exc, _ := f.outputs["ro_slow"]["exclusion"].(map[string]any)
	if exc == nil || exc["reason"] != "deadline_exceeded" {
		t.Fatalf("want deadline_exceeded, got %v", f.outputs["ro_slow"])
	}
}
