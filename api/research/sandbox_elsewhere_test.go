package research

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// A live local sandbox whose records are on another host (api and worker
// split, no shared data directory) is read through its host's task queue
// (the end-to-end split test shows that). When its workflow names no host
// queue to ask, it answers a clear "unavailable" naming the fix, instead
// of looking like a sandbox with no runs or files; the release checklist
// says its outputs could not be checked.
func TestSandboxRuns_LocalSandboxOnAnotherHostIsUnavailableNotEmpty(t *testing.T) {
	s, tc := kubeService(t)
	tc.On("QueryWorkflow", mock.Anything, "sandbox/sbx_elsewhere01", "", wf.SandboxStateQuery).
		Return(nil, errors.New("workflow not found"))
	sb := storeSandbox(t, s, "sbx_elsewhere01", "local", models.SandboxRunning, "127.0.0.1")
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	for _, tool := range []string{"sandbox.runs", "sandbox.terminal"} {
		_, terr := s.Invoke(context.Background(), agent, tool, json.RawMessage(`{"project_id":"prj_k","sandbox_uid":"sbx_elsewhere01"}`))
		if terr == nil || terr.Code != "unavailable" || !strings.Contains(terr.Message, "GATEHOUSE_DATA_DIR") {
			t.Fatalf("%s of a sandbox held by another host: %+v", tool, terr)
		}
	}
	item := s.retentionChecklist(context.Background(), sb)
	if item.OutputsUnchecked == nil || !strings.Contains(*item.OutputsUnchecked, "names no host task queue") {
		t.Fatalf("release checklist must say the outputs were not checked: %v", item)
	}
}
