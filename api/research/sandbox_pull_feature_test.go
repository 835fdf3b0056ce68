package research

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

// heldLocalSandbox stores a running local sandbox whose directory this
// process holds, with one file in its working directory.
func heldLocalSandbox(t *testing.T, s *Service, uid string) {
	t.Helper()
	storeSandbox(t, s, uid, "local", models.SandboxRunning, "127.0.0.1")
	work := filepath.Join(s.Config.DataDir, "sandboxes", uid, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "out.txt"), []byte("result\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// With storage off, sandbox.pull_outputs answers "unsupported" and stores
// nothing, instead of making storage objects no tool can reach; with it
// on, the same call reaches the sandbox's files.
func TestSandboxPullOutputs_StorageOffIsUnsupportedAndStoresNothing(t *testing.T) {
	s, _ := kubeService(t)
	heldLocalSandbox(t, s, "sbx_pullfeature1")
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	args := json.RawMessage(`{"project_id":"prj_k","sandbox_uid":"sbx_pullfeature1","paths":["out.txt"]}`)

	s.Config.Features.Storage = false
	_, terr := s.Invoke(context.Background(), agent, "sandbox.pull_outputs", args)
	if terr == nil || terr.Code != "unsupported" || !strings.Contains(terr.Message, "GATEHOUSE_FEATURE_STORAGE") {
		t.Fatalf("pull with storage off: %+v", terr)
	}
	var n int64
	if err := s.DB.Model(&models.StorageObject{}).Count(&n).Error; err != nil || n != 0 {
		t.Fatalf("storage objects after a refused pull: %d %v", n, err)
	}

	s.Config.Features.Storage = true
	_, terr = s.Invoke(context.Background(), agent, "sandbox.pull_outputs",
		json.RawMessage(`{"project_id":"prj_k","sandbox_uid":"sbx_pullfeature1","paths":["missing.txt"]}`))
	if terr == nil || terr.Code != "not_found" {
		t.Fatalf("pull of a missing file with storage on: %+v", terr)
	}
}

// wait_seconds above the server cap is capped (the contract's "server cap
// 300"), not refused.
func TestSandboxRuns_WaitOverTheCapIsCappedNotRefused(t *testing.T) {
	s, _ := kubeService(t)
	heldLocalSandbox(t, s, "sbx_waitcap00001")
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	out, terr := s.Invoke(context.Background(), agent, "sandbox.runs", json.RawMessage(`{"project_id":"prj_k","sandbox_uid":"sbx_waitcap00001","wait_seconds":3600}`))
	if terr != nil {
		t.Fatalf("wait_seconds 3600: %+v", terr)
	}
	if got, _ := out.(sandboxRunsResp); got.Count != 0 || got.SandboxUID != "sbx_waitcap00001" {
		t.Fatalf("runs of an idle sandbox: %v", out)
	}
	if _, terr := s.Invoke(context.Background(), agent, "sandbox.runs", json.RawMessage(`{"project_id":"prj_k","sandbox_uid":"sbx_waitcap00001","wait_seconds":-1}`)); terr == nil || terr.Code != "invalid_input" {
		t.Fatalf("negative wait_seconds: %+v", terr)
	}
}
