package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrUnconfined is why a local provider refuses to start sandboxes: this
// host cannot confine their commands (no bubblewrap, or no user namespaces
// for the user commands run as), and running them unconfined would hand an
// agent the worker's files and environment. Wrapped with the reason.
var ErrUnconfined = errors.New("sandbox: local sandboxes cannot be confined on this host")

// Confinement defaults: what one sandbox may hold.
const (
	// DefaultMaxProcesses bounds the processes (RLIMIT_NPROC) of one
	// sandbox's user namespace.
	DefaultMaxProcesses = 512
	// DefaultDiskQuota bounds the bytes a working directory may hold.
	DefaultDiskQuota int64 = 20 << 30
	// sandboxTmpSize is the size of the private tmpfs on /tmp.
	sandboxTmpSize = 512 << 20
)

// rootDirs are the host's directories a command sees, read-only; on a
// merged-/usr host the top-level ones are symlinks into /usr and are
// recreated as such.
var rootDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// etcFiles are what of /etc a command sees, read-only: enough to resolve
// users, load libraries, find alternatives and verify TLS certificates.
var etcFiles = []string{"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts", "/etc/ld.so.cache",
	"/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/alternatives", "/etc/ssl", "/etc/ca-certificates"}

// confinement is how a runner confines and bounds its commands.
type confinement struct {
	// bwrap is bubblewrap's path; "" runs commands unconfined.
	bwrap        string
	maxProcesses int
	diskQuota    int64
}

// bwrapArgs are the bubblewrap options confining a command to work: every
// namespace unshared (user, mount, PID, network, IPC, UTS, cgroup), so it
// sees neither the data directory, nor other sandboxes, nor the worker's
// /proc (a fresh one shows only its own PID namespace), nor the host's
// network (the worker's Temporal, database and API on loopback included);
// no capabilities, a new session, death with its parent (killing bwrap
// kills the namespace's init and with it every process, a setsid child
// included); a read-only root of /usr and /etc essentials, a private
// tmpfs /tmp, and work bound read-write at its own path. bubblewrap sets
// no_new_privs itself. An empty work binds nothing (the probe).
func bwrapArgs(work string, host hostEntry) []string {
	args := []string{"--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--cap-drop", "ALL"}
	for _, dir := range rootDirs {
		switch isDir, link := host(dir); {
		case link != "":
			args = append(args, "--symlink", link, dir)
		case isDir:
			args = append(args, "--ro-bind", dir, dir)
		}
	}
	for _, f := range etcFiles {
		args = append(args, "--ro-bind-try", f, f)
	}
	args = append(args, "--proc", "/proc", "--dev", "/dev", "--size", fmt.Sprint(sandboxTmpSize), "--tmpfs", "/tmp")
	if work != "" {
		args = append(args, "--bind", work, work, "--chdir", work)
	}
	return append(args, "--remount-ro", "/")
}

// hostEntry says what path is on the host: a directory, or a symlink to
// link; neither for anything else or nothing.
type hostEntry func(path string) (isDir bool, link string)

// realHost is hostEntry of this machine.
func realHost(path string) (bool, string) {
	st, err := os.Lstat(path)
	if err != nil {
		return false, ""
	}
	if st.Mode()&os.ModeSymlink != 0 {
		link, _ := os.Readlink(path)
		return false, link
	}
	return st.IsDir(), ""
}

// bwrapPath finds bubblewrap on PATH, else where Debian installs it.
func bwrapPath() (string, error) { return lookBwrap(os.Getenv("PATH"), "/usr/bin/bwrap") }

// lookBwrap answers the first executable bwrap in the directories of
// pathList, else fallback when executable, else ErrUnconfined.
func lookBwrap(pathList, fallback string) (string, error) {
	candidates := []string{}
	for _, dir := range filepath.SplitList(pathList) {
		if filepath.IsAbs(dir) {
			candidates = append(candidates, filepath.Join(dir, "bwrap"))
		}
	}
	for _, p := range append(candidates, fallback) {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: bubblewrap (bwrap) is not installed; install the bubblewrap package, or set %s=true on a single-user machine",
		ErrUnconfined, UnisolatedSetting)
}

// confinedArgv is argv run inside bubblewrap, confined to work.
func confinedArgv(bwrap, work string, argv []string) []string {
	out := append([]string{bwrap}, bwrapArgs(work, realHost)...)
	return append(append(out, "--"), argv...)
}

// probeConfinement runs /bin/true confined by bwrap, as cred (nil: this process's
// user), and answers ErrUnconfined with bubblewrap's reason when it fails:
// most often a kernel or container that denies user namespaces to that
// user.
func probeConfinement(bwrap string, cred *syscall.Credential) error {
	cmd := exec.Command(bwrap, append(append(bwrapArgs("", realHost), "--"), "/bin/true")...)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		who := "this process's user"
		if cred != nil {
			who = fmt.Sprintf("uid %d", cred.Uid)
		}
		return fmt.Errorf("%w: bwrap --unshare-user as %s failed (%v: %s); enable user namespaces, or set %s=true on a single-user machine",
			ErrUnconfined, who, err, strings.TrimSpace(string(out)), UnisolatedSetting)
	}
	return nil
}

// UnisolatedSetting is the configuration variable that lets a local
// provider run commands unconfined, as the worker's user.
const UnisolatedSetting = "GATEHOUSE_SANDBOX_UNISOLATED_I_UNDERSTAND"
