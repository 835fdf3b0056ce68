package prodlike

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// orphanParentEnv makes the test binary play a stack owner that starts a
// child and then dies without stopping it (a panicking test).
const orphanParentEnv = "PRODLIKE_TEST_ORPHAN_PARENT"

func TestMain(m *testing.M) {
	if dir := os.Getenv(orphanParentEnv); dir != "" {
		p, err := startProc("sleeper", filepath.Join(dir, "sleeper.log"), Command{Path: "sleep", Args: []string{"300"}}, nil)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println(p.Pid())
		os.Exit(0) // no Stop: the owner is gone
	}
	os.Exit(m.Run())
}

func TestProc_DiesWithItsOwner(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), orphanParentEnv+"="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatal("the owner printed no child pid")
	}
	pid, err := strconv.Atoi(sc.Text())
	if err != nil {
		t.Fatalf("owner said %q", sc.Text())
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d outlived the process that started it", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestProc_TerminateThenStartAgain(t *testing.T) {
	t.Parallel()
	p, err := startProc("sleeper", filepath.Join(t.TempDir(), "sleeper.log"), Command{Path: "sleep", Args: []string{"300"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := p.Pid()
	if err := p.Start(); err == nil {
		t.Fatal("a running process was started twice")
	}
	if err := p.Terminate(5 * time.Second); err != nil || p.Running() {
		t.Fatalf("terminate: %v (running %v)", err, p.Running())
	}
	if err := p.Start(); err != nil || p.Pid() == first || !p.Running() {
		t.Fatalf("restart: %v (pid %d, first %d)", err, p.Pid(), first)
	}
	p.Kill()
	if p.Running() {
		t.Fatal("still running after Kill")
	}
}
