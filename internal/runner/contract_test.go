package runner

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// agentModeEnv makes the test binary act as the agent (not a credential
// name, so the runner passes it on).
const agentModeEnv = "RUNNER_TEST_AGENT_MODE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(agentModeEnv); mode != "" {
		os.Exit(testAgent(mode))
	}
	os.Exit(m.Run())
}

// testAgent is the agent the contract tests run: it reads its input from
// the file it is handed and calls its LLM as the turn input says.
func testAgent(mode string) int {
	in, err := os.ReadFile(os.Getenv("GATEHOUSE_TURN_INPUT_FILE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "no input file:", err)
		return 2
	}
	switch mode {
	case "llm":
		n, _ := strconv.Atoi(string(in))
		base, key := os.Getenv("OPENAI_BASE_URL"), os.Getenv("OPENAI_API_KEY")
		post := func(path string) {
			req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(`{"model":"m"}`))
			req.Header.Set("Authorization", "Bearer "+key)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_ = resp.Body.Close() // read only: a close error loses nothing
			}
		}
		for i := 0; i < n; i++ {
			post("/chat/completions")
		}
		post("/embeddings")              // not a completion
		post("/chat/completions?fail=1") // the upstream refused it: not counted
		fmt.Println("made", n)
	case "inputs":
		meta, _ := os.ReadFile(os.Getenv("GATEHOUSE_METADATA_FILE"))
		_, inline := os.LookupEnv("GATEHOUSE_TURN_INPUT")
		fmt.Printf("len=%d nul=%v inline=%v meta=%s", len(in), strings.ContainsRune(string(in), 0), inline, meta)
	case "sleep":
		time.Sleep(30 * time.Second)
	}
	return 0
}

func self(t *testing.T, mode string) []string {
	t.Helper()
	t.Setenv(agentModeEnv, mode)
	return []string{os.Args[0]}
}

func TestRunner_ReportsTheCompletionsItsAgentMadeThroughTheLLMURL(t *testing.T) {
	f := &fakeServer{queue: []string{"3"}, outputs: map[string]map[string]any{}}
	run(t, f, 1, self(t, "llm")...)
	out := f.outputs["ro_3"]
	if out == nil || out["final_text"] != "made 3" {
		t.Fatalf("output: %v", out)
	}
	if n, ok := out["llm_call_count"].(float64); !ok || n != 3 {
		t.Fatalf("llm_call_count %v, want 3 (accepted completions only)", out["llm_call_count"])
	}
	if len(f.llm) != 5 {
		t.Fatalf("every call reaches the llm_url: %v", f.llm)
	}
	for _, c := range f.llm {
		if !strings.HasPrefix(c, "/llm/lg_x/v1/") || !strings.HasSuffix(c, "Bearer rk_3") {
			t.Fatalf("forwarded to the rollout's llm_url with its api_key: %q", c)
		}
	}
}

func TestRunner_HandsLargeInputsAndMetadataThroughFiles(t *testing.T) {
	big := strings.Repeat("x", 200<<10) + "\x00tail"
	f := &fakeServer{queue: []string{big}, outputs: map[string]map[string]any{}, metadata: map[string]any{"case": "c-1"}}
	run(t, f, 1, self(t, "inputs")...)
	var out map[string]any
	for _, o := range f.outputs {
		out = o
	}
	want := fmt.Sprintf(`len=%d nul=true inline=false meta={"case":"c-1"}`, len(big))
	if out == nil || out["final_text"] != want || out["exclusion"] != nil {
		t.Fatalf("a 200 KiB input with a NUL and the metadata reach the agent as files: %v", out)
	}
}

func TestRunner_StripsEveryProviderCredentialFromTheAgent(t *testing.T) {
	for _, name := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS",
		"AZURE_OPENAI_API_KEY", "GEMINI_API_KEY", "MISTRAL_API_KEY", "HF_TOKEN", "GATEHOUSE_AGENT_KEY", "SOMEVENDOR_API_KEY", "GITHUB_TOKEN"} {
		t.Setenv(name, "secret")
	}
	f := &fakeServer{queue: []string{"e"}, outputs: map[string]map[string]any{}}
	run(t, f, 1, "sh", "-c", `for v in ANTHROPIC_API_KEY AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN GOOGLE_APPLICATION_CREDENTIALS AZURE_OPENAI_API_KEY GEMINI_API_KEY MISTRAL_API_KEY HF_TOKEN GATEHOUSE_AGENT_KEY SOMEVENDOR_API_KEY GITHUB_TOKEN; do eval "val=\${$v:-}"; [ -n "$val" ] && printf '%s ' "$v"; done; [ "$OPENAI_API_KEY" = rk_e ] && printf 'rollout-key'`)
	if got := f.outputs["ro_e"]["final_text"]; got != "rollout-key" {
		t.Fatalf("credentials reached the agent (or its rollout key did not): %q", got)
	}
}

func TestRunner_LabelsEachEndForWhatHappened(t *testing.T) {
	t.Run("the entrypoint cannot start", func(t *testing.T) {
		f := &fakeServer{queue: []string{"s"}, outputs: map[string]map[string]any{}}
		run(t, f, 1, "/nonexistent/agent-binary")
		exc, _ := f.outputs["ro_s"]["exclusion"].(map[string]any)
		if exc == nil || exc["reason"] != ExclusionEntrypoint {
			t.Fatalf("want entrypoint_error, got %v", f.outputs["ro_s"])
		}
		if _, counted := f.outputs["ro_s"]["llm_call_count"]; counted {
			t.Fatal("an agent that never ran asserts no call count")
		}
	})
	t.Run("the runner shuts down", func(t *testing.T) {
		f := &fakeServer{queue: []string{"c"}, outputs: map[string]map[string]any{}, deadline: 20 * time.Second}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(700*time.Millisecond, cancel)
		runCtx(t, ctx, f, 1, self(t, "sleep")...)
		exc, _ := f.outputs["ro_c"]["exclusion"].(map[string]any)
		if exc == nil || exc["reason"] != ExclusionCancelled {
			t.Fatalf("want cancelled, got %v", f.outputs["ro_c"])
		}
	})
	t.Run("the deadline comes: reported before it, with artifacts", func(t *testing.T) {
		f := &fakeServer{queue: []string{"d"}, outputs: map[string]map[string]any{}, deadline: 1500 * time.Millisecond}
		run(t, f, 1, "sh", "-c", `printf partial > "$GATEHOUSE_ARTIFACTS_DIR/notes.txt"; sleep 30`)
		exc, _ := f.outputs["ro_d"]["exclusion"].(map[string]any)
		if len(f.late) > 0 || exc == nil || exc["reason"] != ExclusionDeadline {
			t.Fatalf("want deadline_exceeded accepted before deadline_ts (late: %v), got %v", f.late, f.outputs["ro_d"])
		}
		arts, _ := f.outputs["ro_d"]["artifacts"].(map[string]any)
		if arts["notes.txt"] == nil {
			t.Fatalf("the artifacts reach the server: %v", f.outputs["ro_d"])
		}
	})
}
