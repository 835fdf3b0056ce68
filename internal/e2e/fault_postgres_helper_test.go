package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// privatePostgres is a PostgreSQL cluster of one test's own, in a temporary
// directory on a free loopback port, so a test may stop and restart it
// without touching the shared server other packages use.
type privatePostgres struct {
	bin  string // the server's bin directory (initdb, pg_ctl)
	dir  string // holds data/, the socket and the log
	port int
	cred *syscall.Credential // run as the postgres user when we are root
}

// startPrivatePostgres initializes and starts a private cluster, stopped
// and removed when the test ends. Without the server binaries it skips,
// and under CI (CI set) it fails instead.
func startPrivatePostgres(t *testing.T) *privatePostgres {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must provide a PostgreSQL server: "+format, args...)
		}
		t.Skipf("needs PostgreSQL server binaries: "+format, args...)
	}
	initdbs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(initdbs) == 0 {
		missing("no /usr/lib/postgresql/*/bin/initdb")
	}
	sort.Slice(initdbs, func(i, j int) bool { return versionOf(initdbs[i]) < versionOf(initdbs[j]) })
	p := &privatePostgres{bin: filepath.Dir(initdbs[len(initdbs)-1])}
	dir, err := os.MkdirTemp("", "gatehouse-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p.dir = dir
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		// initdb refuses to run as root: the cluster belongs to postgres.
		u, err := user.Lookup("postgres")
		if err != nil {
			missing("no postgres OS user to own the cluster: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	p.port = freePort(t)
	p.run(t, "initdb", "-D", p.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync")
	conf := fmt.Sprintf("port = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\n"+
		"fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 100\n", p.port, p.dir)
	f, err := os.OpenFile(filepath.Join(p.data(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(conf); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	p.Start(t)
	t.Cleanup(func() { _ = p.ctl("stop", "-m", "immediate") })
	return p
}

// URL is the cluster's database URL for Gatehouse.
func (p *privatePostgres) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

// Start starts the cluster and waits until it accepts connections.
func (p *privatePostgres) Start(t *testing.T) {
	t.Helper()
	if err := p.ctl("start", "-l", filepath.Join(p.dir, "server.log")); err != nil {
		log, _ := os.ReadFile(filepath.Join(p.dir, "server.log"))
		t.Fatalf("start private postgres: %v\n%s", err, log)
	}
}

// Stop shuts the cluster down the way a restart does (fast: open
// connections are terminated) and waits until it is down.
func (p *privatePostgres) Stop(t *testing.T) {
	t.Helper()
	if err := p.ctl("stop", "-m", "fast"); err != nil {
		t.Fatalf("stop private postgres: %v", err)
	}
}

func (p *privatePostgres) data() string { return filepath.Join(p.dir, "data") }

// ctl runs pg_ctl on the cluster and waits for the operation to finish.
func (p *privatePostgres) ctl(args ...string) error {
	cmd := p.command("pg_ctl", append([]string{"-D", p.data(), "-w", "-t", "60"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// run runs one of the server's programs and fails the test on error.
func (p *privatePostgres) run(t *testing.T, prog string, args ...string) {
	t.Helper()
	if out, err := p.command(prog, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", prog, err, out)
	}
}

func (p *privatePostgres) command(prog string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(p.bin, prog), args...)
	cmd.Dir = p.dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=" + p.dir}
	if p.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	}
	return cmd
}

// versionOf is the major version in a /usr/lib/postgresql/<v>/bin path.
func versionOf(path string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return v
}

// freePort is a loopback TCP port free at the time of the call.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}
