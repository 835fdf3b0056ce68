package research

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/deploy"
	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// kubeService is a service whose providers are local and kubernetes (a
// fake clientset), built by deploy.Build from the configuration.
func kubeService(t *testing.T) (*Service, *mocks.Client) {
	t.Helper()
	s := newTestService(t)
	s.DB = modelstest.SQLite(t)
	tc := &mocks.Client{}
	s.Temporal = tc
	// The sandbox workflow's Updates answer at once: its stand-ins mirror the row when started.
	answered := &mocks.WorkflowUpdateHandle{}
	answered.On("Get", mock.Anything, mock.Anything).Return(nil)
	tc.On("UpdateWorkflow", mock.Anything, mock.Anything).Return(answered, nil).Maybe()
	cfg, err := config.FromLookup(func(k string) (string, bool) {
		v, ok := map[string]string{"GATEHOUSE_DATA_DIR": t.TempDir(), "GATEHOUSE_SANDBOX_PROVIDERS": "local,kubernetes",
			"GATEHOUSE_SANDBOX_KUBE_NAMESPACE": "sbx"}[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Config = cfg
	ps, err := deploy.Build(cfg, deploy.Clients{Kube: fake.NewClientset()})
	if err != nil {
		t.Fatal(err)
	}
	prev := sandboxProviders
	sandboxProviders = func(config.Config) (sandbox.Providers, error) { return ps, nil }
	t.Cleanup(func() { sandboxProviders = prev })
	if err := s.DB.Create(&models.Project{ID: "prj_k", Name: "kube-project", CreatedBy: "op"}).Error; err != nil {
		t.Fatal(err)
	}
	return s, tc
}

func invokeOK(t *testing.T, s *Service, tool string, args map[string]any) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(args)
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	out, terr := s.Invoke(context.Background(), agent, tool, raw)
	if terr != nil {
		t.Fatalf("%s %s: %+v", tool, raw, terr)
	}
	b, _ := json.Marshal(out)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func TestSandboxOptions_ListsEveryConfiguredProviderAndFilters(t *testing.T) {
	s, _ := kubeService(t)
	all := invokeOK(t, s, "sandbox.options", map[string]any{"project_id": "prj_k"})
	byProvider := map[string]int{}
	for _, it := range all["instance_types"].([]any) {
		byProvider[it.(map[string]any)["provider"].(string)]++
	}
	if byProvider["local"] == 0 || byProvider["kubernetes"] == 0 || all["default_provider"] != "local" {
		t.Fatalf("options %v", all)
	}
	gpu := invokeOK(t, s, "sandbox.options", map[string]any{"project_id": "prj_k", "gpu": true})
	for _, it := range gpu["instance_types"].([]any) {
		if it.(map[string]any)["gpu"].(float64) < 1 {
			t.Fatalf("gpu filter let %v through", it)
		}
	}
	if gpu["count"].(float64) < 1 {
		t.Fatalf("no gpu types: %v", gpu)
	}
	for filter, want := range map[string]string{"provider": "kubernetes", "region": "cluster"} {
		got := invokeOK(t, s, "sandbox.options", map[string]any{"project_id": "prj_k", filter: want})
		for _, it := range got["instance_types"].([]any) {
			if it.(map[string]any)[filter] != want {
				t.Fatalf("%s filter let %v through", filter, it)
			}
		}
		if got["count"].(float64) != float64(byProvider["kubernetes"]) {
			t.Fatalf("%s=%s: %v", filter, want, got)
		}
	}
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	if _, terr := s.Invoke(context.Background(), agent, "sandbox.options", json.RawMessage(`{"project_id":"prj_k","provider":"docker"}`)); terr == nil || terr.Pointer != "/provider" {
		t.Fatalf("unknown provider filter: %+v", terr)
	}
}

func TestSandboxRequest_ProviderKubernetesStartsAKubernetesSandbox(t *testing.T) {
	s, tc := kubeService(t)
	isKube := mock.MatchedBy(func(in wf.SandboxInput) bool {
		return in.Provider == "kubernetes" && in.InstanceType == "kube-gpu-small" && in.GPU == 1 && in.Region == "cluster"
	})
	tc.On("ExecuteWorkflow", mock.Anything, mock.MatchedBy(func(o client.StartWorkflowOptions) bool {
		return strings.HasPrefix(o.ID, wf.SandboxIDPrefix) && o.TaskQueue == s.Config.TaskQueue
	}), wf.SandboxWorkflowName, isKube).
		Run(func(args mock.Arguments) {
			in := args.Get(3).(wf.SandboxInput)
			_ = models.MirrorSandbox(context.Background(), s.DB, models.SandboxUpdate{UID: in.UID, Status: models.SandboxRunning, Host: "10.0.0.9",
				Port: 2222, User: "sandbox", Workdir: "/workspace", ExpiresAt: s.now().Add(in.TimeLimit)}, s.now())
		}).Return((client.WorkflowRun)(nil), nil).Once()
	got := invokeOK(t, s, "sandbox.request", map[string]any{"project_id": "prj_k", "provider": "kubernetes", "gpu": true,
		"public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGJ2cE1hcmtlcktleUZvclRlc3RzT25seTAxMjM0NTY3 a@b"})
	if got["provider"] != "kubernetes" || got["instance_type"] != "kube-gpu-small" || got["status"] != "running" || got["ssh_host"] != "10.0.0.9" {
		t.Fatalf("sandbox.request: %v", got)
	}
	tc.AssertExpectations(t)
	rows, err := models.ListSandboxes(context.Background(), s.DB, "prj_k", "", true)
	if err != nil || len(rows) != 1 || rows[0].Provider != "kubernetes" || rows[0].GPU != 1 {
		t.Fatalf("rows %+v %v", rows, err)
	}
}
