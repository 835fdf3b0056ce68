package research

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"golang.org/x/crypto/ssh"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/agent"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// A kubernetes sandbox whose Pod runs the sandbox agent (a real agent on
// loopback here) has its runs, terminal, outputs and release checklist
// read from that agent, with the address and token its workflow recorded;
// a Pod without the agent, or one that ended (its address may be another
// Pod's now), answers unsupported.
func TestSandboxTools_KubernetesSandboxIsReadThroughItsAgent(t *testing.T) {
	s, tc := kubeService(t)
	blobs, err := blobstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Blobs = blobs
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	key, _ := ssh.NewSignerFromKey(priv)
	a, err := agent.Start(agent.Config{UID: "sbx_kagent01", PublicKey: string(ssh.MarshalAuthorizedKey(key.PublicKey())), Token: "pod-token",
		Root: t.TempDir(), Listen: "127.0.0.1", TimeLimit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Close() }()
	for uid, ep := range map[string]wf.SandboxEndpoint{
		"sbx_kagent01": {Host: "10.0.0.9", Port: 2222, InspectURL: a.InspectURL, InspectToken: "pod-token"},
		"sbx_kplain01": {Host: "10.0.0.8", Port: 2222},
		"sbx_kended01": {Host: "10.0.0.7", Port: 2222, InspectURL: a.InspectURL, InspectToken: "pod-token"},
	} {
		status := models.SandboxRunning
		if uid == "sbx_kended01" {
			status = models.SandboxTerminated // its Pod IP may be another Pod's now
		}
		storeSandbox(t, s, uid, "kubernetes", status, ep.Host)
		tc.On("QueryWorkflow", mock.Anything, wf.SandboxWorkflowID(uid), "", wf.SandboxStateQuery).
			Return(queriedState{wf.SandboxState{UID: uid, Status: wf.SandboxRunning, Endpoint: ep}}, nil)
	}
	c, err := ssh.Dial("tcp", net.JoinHostPort(a.SSH.Host, fmt.Sprint(a.SSH.Port)), &ssh.ClientConfig{User: sandbox.LocalUser,
		Auth: []ssh.AuthMethod{ssh.PublicKeys(key)}, HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := c.NewSession()
	out, err := sess.CombinedOutput("echo 0.93 > score.txt && echo scratch > notes.txt && echo scored")
	_ = sess.Close()
	_ = c.Close()
	if err != nil || strings.TrimSpace(string(out)) != "scored" {
		t.Fatalf("ssh: %q %v", out, err)
	}

	runs := invokeOK(t, s, "sandbox.runs", map[string]any{"project_id": "prj_k", "sandbox_uid": "sbx_kagent01", "wait_seconds": 5})
	if list, _ := runs["runs"].([]any); runs["count"] != 1.0 || len(list) != 1 || !strings.Contains(list[0].(map[string]any)["output"].(string), "scored") {
		t.Fatalf("sandbox.runs through the agent: %v", runs)
	}
	term := invokeOK(t, s, "sandbox.terminal", map[string]any{"project_id": "prj_k", "sandbox_uid": "sbx_kagent01"})
	if !strings.Contains(term["text"].(string), "$ echo 0.93 > score.txt") {
		t.Fatalf("sandbox.terminal through the agent: %v", term)
	}
	pulled := invokeOK(t, s, "sandbox.pull_outputs", map[string]any{"project_id": "prj_k", "sandbox_uid": "sbx_kagent01", "paths": []string{"score.txt"}})
	want := sha256.Sum256([]byte("0.93\n"))
	if o := pulled["outputs"].([]any)[0].(map[string]any); o["sha256"] != hex.EncodeToString(want[:]) || o["status"] != models.StorageAvailable {
		t.Fatalf("sandbox.pull_outputs through the agent: %v", pulled)
	}
	agentPrincipal := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	if _, terr := s.Invoke(context.Background(), agentPrincipal, "sandbox.pull_outputs",
		json.RawMessage(`{"project_id":"prj_k","sandbox_uid":"sbx_kagent01","paths":["../../etc/passwd"]}`)); terr == nil || terr.Code != "invalid_input" {
		t.Fatalf("a path outside through the agent: %+v", terr)
	}
	var sb models.Sandbox
	if err := s.DB.Take(&sb, "uid = ?", "sbx_kagent01").Error; err != nil {
		t.Fatal(err)
	}
	item := s.retentionChecklist(context.Background(), sb)
	if item.UnpulledOutputs == nil || len(*item.UnpulledOutputs) != 1 || (*item.UnpulledOutputs)[0].Path != "notes.txt" {
		t.Fatalf("release checklist through the agent: %v", item)
	}

	for _, uid := range []string{"sbx_kplain01", "sbx_kended01"} {
		_, terr := s.Invoke(context.Background(), agentPrincipal, "sandbox.runs", json.RawMessage(`{"project_id":"prj_k","sandbox_uid":"`+uid+`"}`))
		if terr == nil || terr.Code != "unsupported" {
			t.Fatalf("%s (a Pod without the agent, or one that ended): %+v", uid, terr)
		}
	}
}
