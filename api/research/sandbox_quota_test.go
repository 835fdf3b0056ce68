package research

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

const testPublicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGJ2cE1hcmtlcktleUZvclRlc3RzT25seTAxMjM0NTY3 a@b"

// startsRunning makes every sandbox workflow start mirror its row running
// at once, and records the inputs.
func startsRunning(s *Service, tc *mocks.Client) *[]wf.SandboxInput {
	var inputs []wf.SandboxInput
	tc.On("ExecuteWorkflow", mock.Anything, mock.Anything, wf.SandboxWorkflowName, mock.Anything).
		Run(func(args mock.Arguments) {
			in := args.Get(3).(wf.SandboxInput)
			inputs = append(inputs, in)
			_ = models.MirrorSandbox(context.Background(), s.DB, models.SandboxUpdate{UID: in.UID, Status: models.SandboxRunning, Host: "10.0.0.9",
				Port: 2222, User: "sandbox", Workdir: "/workspace", ExpiresAt: s.now().Add(in.TimeLimit)}, s.now())
		}).Return((client.WorkflowRun)(nil), nil)
	return &inputs
}

// request calls sandbox.request with args, answering the tool error.
func request(s *Service, args map[string]any) (map[string]any, *ToolError) {
	args["project_id"], args["public_key"] = "prj_k", testPublicKey
	raw, _ := json.Marshal(args)
	out, terr := s.Invoke(context.Background(), platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}, "sandbox.request", raw)
	// The answer is a typed body; the tests read its JSON.
	view, _ := json.Marshal(out)
	var m map[string]any
	_ = json.Unmarshal(view, &m)
	return m, terr
}

func isQuota(terr *ToolError) bool {
	return terr != nil && terr.Code == "conflict" && terr.Details["reason"] == "sandbox_quota_exceeded"
}

// TestSandboxRequest_QuotaCapsLiveSandboxesAndGPUsOfAProject: additional
// sandboxes were unlimited (GPU ones included); now a project holds at
// most GATEHOUSE_SANDBOX_MAX_LIVE_PER_PROJECT live sandboxes and
// _MAX_GPUS_PER_PROJECT GPUs, and a refused request starts nothing.
func TestSandboxRequest_QuotaCapsLiveSandboxesAndGPUsOfAProject(t *testing.T) {
	s, tc := kubeService(t)
	s.Config.Sandbox.MaxLivePerProject, s.Config.Sandbox.MaxGPUsPerProject = 3, 1
	inputs := startsRunning(s, tc)
	if _, terr := request(s, map[string]any{"provider": "kubernetes", "gpu": true}); terr != nil {
		t.Fatalf("first GPU sandbox: %+v", terr)
	}
	if _, terr := request(s, map[string]any{"provider": "kubernetes", "gpu": true, "additional": true}); !isQuota(terr) {
		t.Fatalf("a second GPU over a cap of 1: %+v", terr)
	}
	for i := range 2 {
		if _, terr := request(s, map[string]any{"provider": "kubernetes", "additional": true}); terr != nil {
			t.Fatalf("CPU sandbox %d: %+v", i, terr)
		}
	}
	if _, terr := request(s, map[string]any{"provider": "kubernetes", "additional": true}); !isQuota(terr) || terr.Details["max_live_sandboxes"] != 3 {
		t.Fatalf("a fourth live sandbox over a cap of 3: %+v", terr)
	}
	if len(*inputs) != 3 {
		t.Fatalf("%d workflows started, want 3", len(*inputs))
	}
	use, _ := models.SandboxUsageOf(context.Background(), s.DB, "prj_k")
	if use.Live != 3 || use.GPUs != 1 {
		t.Fatalf("usage %+v", use)
	}
}

// TestSandboxRequest_LifetimeCapReachesTheWorkflow: a time_limit over the
// total lifetime is refused, and every workflow gets the cap its extends
// stop at.
func TestSandboxRequest_LifetimeCapReachesTheWorkflow(t *testing.T) {
	s, tc := kubeService(t)
	s.Config.Sandbox.MaxLifetime = 2 * time.Hour
	inputs := startsRunning(s, tc)
	if _, terr := request(s, map[string]any{"provider": "kubernetes", "time_limit": 3 * 3600}); terr == nil || terr.Pointer != "/time_limit" {
		t.Fatalf("a time_limit over the lifetime: %+v", terr)
	}
	if _, terr := request(s, map[string]any{"provider": "kubernetes", "time_limit": 3600}); terr != nil {
		t.Fatal(terr)
	}
	if len(*inputs) != 1 || (*inputs)[0].MaxLifetime != 2*time.Hour || (*inputs)[0].TimeLimit != time.Hour {
		t.Fatalf("inputs %+v", *inputs)
	}
	opts := invokeOK(t, s, "sandbox.options", map[string]any{"project_id": "prj_k"})
	if lim := opts["limits"].(map[string]any); lim["lifetime_max_seconds"] != 7200.0 || lim["live_sandboxes_max"] != 4.0 {
		t.Fatalf("limits %v", lim)
	}
}
