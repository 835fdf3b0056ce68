package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// crash stops uid's server the way a dying worker would lose it: the
// working directory and the run records stay.
func crash(t *testing.T, l *Local, uid string) {
	t.Helper()
	l.mu.Lock()
	s := l.servers[uid]
	delete(l.servers, uid)
	l.mu.Unlock()
	if s == nil {
		t.Fatalf("no server for %s", uid)
	}
	s.close()
}

func TestLocal_ReprovisionAfterRestartKeepsPortFilesAndRuns(t *testing.T) {
	root := t.TempDir()
	ctx := context.Background()
	key, pub := newKey(t)
	spec := Spec{UID: "sbx-restart", PublicKey: pub, TimeLimit: time.Minute}
	before := &Local{Root: root, servers: map[string]*server{}}
	ep1, err := before.Provision(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	c, err := dial(ep1, key)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := runCmd(t, c, "echo kept > kept.txt && echo done"); err != nil || !strings.Contains(out, "done") {
		t.Fatalf("run: %q %v", out, err)
	}
	_ = c.Close()
	crash(t, before, spec.UID)
	// A command the crash cut off is still recorded as running.
	stale := Run{Seq: 2, Command: "sleep 600", Status: RunRunning, StartedAt: time.Now().UTC()}
	b, _ := json.Marshal(stale)
	runsDir := filepath.Join(root, spec.UID, "runs")
	if err := os.WriteFile(filepath.Join(runsDir, "00000002.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(runsDir, "00000002.out"), []byte("partial output\n"), 0o600)
	if _, err := net.DialTimeout("tcp", net.JoinHostPort(ep1.Host, fmt.Sprint(ep1.Port)), time.Second); err == nil {
		t.Fatal("the crashed server still listens")
	}

	// The restarted worker's provider: same port, same files, runs closed.
	after := &Local{Root: root, servers: map[string]*server{}}
	spec.Port = ep1.Port
	ep2, err := after.Provision(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = after.Destroy(ctx, spec.UID) })
	if ep2 != ep1 {
		t.Fatalf("endpoint after restart %+v, want %+v", ep2, ep1)
	}
	if again, err := after.Provision(ctx, spec); err != nil || again != ep2 {
		t.Fatalf("re-provision is not idempotent: %+v %v", again, err)
	}
	c, err = dial(ep2, key)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }() // test cleanup: a close error fails nothing
	if out, err := runCmd(t, c, "cat kept.txt"); err != nil || out != "kept\n" {
		t.Fatalf("file after restart: %q %v", out, err)
	}
	runs, err := after.Runs(spec.UID)
	if err != nil || len(runs) != 3 {
		t.Fatalf("runs %+v %v", runs, err)
	}
	if runs[1].Status != RunKilled || *runs[1].ExitCode != -1 || !strings.Contains(runs[1].Output, "partial output") || runs[2].Seq != 3 {
		t.Fatalf("runs after restart %+v", runs)
	}
	if _, err := os.Stat(filepath.Join(runsDir, "00000002.out")); !os.IsNotExist(err) {
		t.Fatalf("stale live output kept: %v", err)
	}

	// When the old port is taken, a new one is chosen.
	crash(t, after, spec.UID)
	squatter, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(ep2.Port)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = squatter.Close() }() // test cleanup: a close error fails nothing
	third := &Local{Root: root, servers: map[string]*server{}}
	ep3, err := third.Provision(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = third.Destroy(ctx, spec.UID) })
	if ep3.Port == ep2.Port || ep3.Workdir != ep2.Workdir {
		t.Fatalf("endpoint with the port taken %+v (was %+v)", ep3, ep2)
	}
	c3, err := dial(ep3, key)
	if err != nil {
		t.Fatal(err)
	}
	_ = c3.Close()
}
