package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// confinedLocal is a Local whose commands run confined, dropping root to
// nobody when the test runs as root; without bubblewrap the test is
// skipped, except in CI, which installs it (scripts/install-test-tools).
func confinedLocal(t *testing.T) *Local {
	t.Helper()
	l := &Local{Root: filepath.Join(t.TempDir(), "sandboxes"), servers: map[string]*server{}}
	if os.Geteuid() == 0 {
		if err := l.RunAs("nobody"); err != nil {
			t.Skipf("no nobody user: %v", err)
		}
		t.Cleanup(func() { _ = os.Remove(filepath.Dir(l.Workdir("x"))) })
	}
	if _, err := l.confinement(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must be able to confine sandboxes: %v", err)
		}
		t.Skipf("cannot confine here: %v", err)
	}
	return l
}

// hostProcesses counts this host's sleep processes whose command line
// holds marker (the shells and bubblewrap running them hold it too).
func hostProcesses(t *testing.T, marker string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && bytes.HasPrefix(b, []byte("sleep\x00")) && bytes.Contains(b, []byte(marker)) {
			n++
		}
	}
	return n
}

// waitForHostProcesses waits until want processes holding marker run on
// the host.
func waitForHostProcesses(t *testing.T, marker string, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for hostProcesses(t, marker) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d processes with %q on the host, want %d", hostProcesses(t, marker), marker, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestLocal_DestroyKillsTheWholeProcessTreeASetsidChildIncluded(t *testing.T) {
	l := confinedLocal(t)
	_, c := provisionAndDial(t, l, Spec{UID: "sbx-tree", TimeLimit: time.Minute})
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sess.Close() }() // test cleanup: a close error fails nothing
	if err := sess.Start("setsid sleep 987.6541 </dev/null >/dev/null 2>&1 & nohup sleep 987.6542 </dev/null >/dev/null 2>&1 & sleep 987.6543"); err != nil {
		t.Fatal(err)
	}
	waitForHostProcesses(t, "987.654", 3)
	if err := l.Destroy(context.Background(), "sbx-tree"); err != nil {
		t.Fatal(err)
	}
	waitForHostProcesses(t, "987.654", 0)
}

func TestLocal_ACommandsBackgroundProcessesEndWithIt(t *testing.T) {
	l := confinedLocal(t)
	_, c := provisionAndDial(t, l, Spec{UID: "sbx-bg", TimeLimit: time.Minute})
	if out, err := runCmd(t, c, "setsid sleep 876.5431 </dev/null >/dev/null 2>&1 & echo started"); err != nil || out != "started\n" {
		t.Fatalf("%q %v", out, err)
	}
	waitForHostProcesses(t, "876.5431", 0)
}

func TestLocal_ConfinedCommandsAreBoundedInProcessesAndDisk(t *testing.T) {
	l := confinedLocal(t)
	l.MaxProcesses, l.DiskQuota = 24, 1<<20
	_, c := provisionAndDial(t, l, Spec{UID: "sbx-bounded", TimeLimit: time.Minute})

	// 40 background sleeps: forks past the limit are refused.
	out, _ := runCmd(t, c, "sh -c 'for i in $(seq 1 40); do sleep 5 & echo spawned; done' 2>&1 | cat")
	if n := strings.Count(out, "spawned"); n >= 24 || n < 5 || !strings.Contains(out, "fork") {
		t.Fatalf("%d of 40 sleeps started, want fewer than the limit 24 and a refused fork: %q", n, out)
	}

	// One file cannot outgrow the quota.
	out, _ = runCmd(t, c, "head -c 2000000 /dev/zero > big.bin; echo bytes=$(wc -c < big.bin)")
	if n, err := strconv.Atoi(strings.TrimSpace(out[strings.Index(out, "bytes=")+6:])); err != nil || n > 1<<20 {
		t.Fatalf("a single file grew to %q", out)
	}
	if out, err := runCmd(t, c, "rm big.bin && echo removed"); err != nil || out != "removed\n" {
		t.Fatalf("rm: %q %v", out, err)
	}

	// Files that together outgrow it: the running command is killed at the
	// next check; the next ones cannot write a byte but may delete.
	start := time.Now()
	out, err := runCmd(t, c, "for i in 1 2 3; do head -c 600000 /dev/zero > part$i.bin; done; sleep 30; echo survived")
	if err == nil || strings.Contains(out, "survived") || time.Since(start) > 20*time.Second {
		t.Fatalf("over quota the command ran on: %q %v after %s", out, err, time.Since(start))
	}
	if out, err := runCmd(t, c, "echo more >> part1.bin && echo wrote"); err == nil || strings.Contains(out, "wrote") || !strings.Contains(out, "quota") {
		t.Fatalf("a command wrote over quota: %q %v", out, err)
	}
	if out, err := runCmd(t, c, "rm part1.bin part2.bin && echo removed"); err != nil || !strings.Contains(out, "removed") {
		t.Fatalf("rm over quota: %q %v", out, err)
	}
	if out, err := runCmd(t, c, "echo ran > ran.txt && cat ran.txt"); err != nil || out != "ran\n" {
		t.Fatalf("under quota again: %q %v", out, err)
	}
	runs, _ := l.Runs("sbx-bounded")
	if len(runs) != 7 || runs[3].Status != RunKilled || !strings.Contains(runs[3].Output, "quota") || *runs[4].ExitCode == 0 {
		t.Fatalf("runs: %+v", runs)
	}
}

func TestLocal_ConfinedCommandsSeeNoHostProcessNetworkOrPrivilege(t *testing.T) {
	l := confinedLocal(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }() // test cleanup: a close error fails nothing
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	_, c := provisionAndDial(t, l, Spec{UID: "sbx-blind", TimeLimit: time.Minute})
	port := ln.Addr().(*net.TCPAddr).Port
	for name, tc := range map[string]struct{ cmd, leak string }{
		"the worker's process":   {fmt.Sprintf("cat /proc/%d/cmdline 2>/dev/null", os.Getpid()), "test"},
		"a loopback service":     {fmt.Sprintf("bash -c 'echo > /dev/tcp/127.0.0.1/%d' 2>/dev/null && echo connected", port), "connected"},
		"a capability":           {"grep CapEff /proc/self/status", "CapEff:\t0000000000000000"},
		"no_new_privs":           {"grep NoNewPrivs /proc/self/status", "NoNewPrivs:\t1"},
		"a writable system root": {"touch /usr/x /etc/x /x 2>/dev/null && echo wrote", "wrote"},
	} {
		t.Run(name, func(t *testing.T) {
			out, _ := runCmd(t, c, tc.cmd)
			got := strings.Contains(out, tc.leak)
			// The capability and no_new_privs lines are what must be there.
			if want := name == "a capability" || name == "no_new_privs"; got != want {
				t.Errorf("%s: %q", tc.cmd, out)
			}
		})
	}
}
