package research

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"golang.org/x/crypto/ssh"

	"github.com/gatehouse/gatehouse/internal/sandbox/agent"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// TestSandboxRequest_InspectionTokenStaysOutOfTheWorkflow: a kubernetes
// sandbox's agent token is drawn into its row and appears in nothing the
// workflow carries (the input here; the endpoint the provider answers
// holds none either, see package kube).
func TestSandboxRequest_InspectionTokenStaysOutOfTheWorkflow(t *testing.T) {
	s, tc := kubeService(t)
	inputs := startsRunning(s, tc)
	got, terr := request(s, map[string]any{"provider": "kubernetes"})
	if terr != nil {
		t.Fatal(terr)
	}
	sb, err := models.GetSandbox(context.Background(), s.DB, "prj_k", got["sandbox_uid"].(string))
	if err != nil || len(sb.InspectToken) != 64 {
		t.Fatalf("row %+v %v", sb, err)
	}
	raw, _ := json.Marshal(*inputs)
	if strings.Contains(string(raw), sb.InspectToken) {
		t.Fatalf("the workflow input holds the token: %s", raw)
	}
	if view, _ := json.Marshal(got); strings.Contains(string(view), sb.InspectToken) {
		t.Fatalf("the tool answer holds the token: %s", view)
	}
}

// TestSandboxTools_PodAgentIsReadWithTheRowsToken: an agent that knows
// only the token's SHA-256 (as a Pod does) is read with the row's token;
// the workflow's endpoint names only the URL.
func TestSandboxTools_PodAgentIsReadWithTheRowsToken(t *testing.T) {
	s, tc := kubeService(t)
	const token = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	key, _ := ssh.NewSignerFromKey(priv)
	a, err := agent.Start(agent.Config{UID: "sbx_ktoken01", PublicKey: string(ssh.MarshalAuthorizedKey(key.PublicKey())),
		TokenSHA256: agent.TokenSHA256(token), Root: t.TempDir(), Listen: "127.0.0.1", TimeLimit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Close() }()
	storeSandbox(t, s, "sbx_ktoken01", "kubernetes", models.SandboxRunning, "10.0.0.9")
	if err := s.DB.Model(&models.Sandbox{}).Where("uid = ?", "sbx_ktoken01").Update("inspect_token", token).Error; err != nil {
		t.Fatal(err)
	}
	tc.On("QueryWorkflow", mock.Anything, wf.SandboxWorkflowID("sbx_ktoken01"), "", wf.SandboxStateQuery).
		Return(queriedState{wf.SandboxState{UID: "sbx_ktoken01", Status: wf.SandboxRunning,
			Endpoint: wf.SandboxEndpoint{Host: "10.0.0.9", Port: 2222, InspectURL: a.InspectURL}}}, nil)
	runs := invokeOK(t, s, "sandbox.runs", map[string]any{"project_id": "prj_k", "sandbox_uid": "sbx_ktoken01"})
	if runs["count"] != 0.0 {
		t.Fatalf("sandbox.runs: %v", runs)
	}
}
