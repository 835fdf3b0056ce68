package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// LocalName is the local provider's name.
const LocalName = "local"

// LocalUser is the SSH user name of local sandboxes.
const LocalUser = "sandbox"

var uidPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Local runs each sandbox on this host: a working directory under Root and
// an SSH server bound to loopback on its own port that accepts only the
// sandbox's public key. Each command runs confined by bubblewrap (see
// bwrapArgs), where it sees its working directory and a read-only system
// but not the data directory, other sandboxes, the worker's processes or
// the host's network; a host that cannot confine gets ErrUnconfined (see
// SetUnconfined). Runs are recorded as files beside the working directory,
// outside the confinement, so any process sharing Root can read them.
type Local struct {
	Root string
	// Listen is the address SSH servers bind ("" is 127.0.0.1); a sandbox
	// agent inside a Pod binds every interface.
	Listen string
	// Env is the environment commands start from (nil: a minimal PATH and
	// locale); a sandbox agent passes its image's, so PATH, CUDA and
	// library settings reach commands. HOME and PWD are always the workdir.
	Env []string
	// MaxProcesses bounds one sandbox's processes (0: DefaultMaxProcesses);
	// DiskQuota the bytes its working directory may hold (0:
	// DefaultDiskQuota).
	MaxProcesses int
	DiskQuota    int64

	mu      sync.Mutex
	servers map[string]*server
	// runAs is set by RunAs when commands drop root (nil: they do not).
	runAs atomic.Pointer[runAs]
	// unconfined is set by SetUnconfined.
	unconfined atomic.Bool
	// findBwrap locates bubblewrap (nil: bwrapPath); tests swap in a
	// bubblewrap that fails as on a host without user namespaces.
	findBwrap func() (string, error)
}

var (
	localsMu sync.Mutex
	locals   = map[string]*Local{}
)

// LocalAt returns the process's local provider rooted at root; the worker
// and the API of one process share it, so they share its live servers.
func LocalAt(root string) *Local {
	localsMu.Lock()
	defer localsMu.Unlock()
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	if l, ok := locals[abs]; ok {
		return l
	}
	l := &Local{Root: abs, servers: map[string]*server{}}
	locals[abs] = l
	return l
}

// Name implements Provider.
func (l *Local) Name() string { return LocalName }

// Options implements Provider: shapes this host can honour as limits.
func (l *Local) Options() []InstanceType {
	return []InstanceType{
		{Provider: LocalName, Name: "local-small", CPU: 1, MemoryMB: 1024, Region: "local"},
		{Provider: LocalName, Name: "local-medium", CPU: 2, MemoryMB: 4096, Region: "local"},
	}
}

// Health implements Provider: commands must be confinable and the root
// writable.
func (l *Local) Health(context.Context) error {
	if _, err := l.confinement(); err != nil {
		return err
	}
	if err := os.MkdirAll(l.Root, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(l.Root, ".health-*")
	if err != nil {
		return err
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
}

func (l *Local) dir(uid string) (string, error) {
	if !uidPattern.MatchString(uid) {
		return "", fmt.Errorf("%w: uid %q", ErrNotFound, uid)
	}
	return filepath.Join(l.Root, uid), nil
}

// Holds reports whether this host has sandbox uid's records: a local
// sandbox lives on the host of the worker that provisioned it, so an API
// process on another host has none.
func (l *Local) Holds(uid string) bool {
	dir, err := l.dir(uid)
	if err != nil {
		return false
	}
	_, err = os.Stat(dir)
	return err == nil
}

// Workdir is the working directory of sandbox uid: under Root, or under
// the run-as work root when commands drop root (see RunAs).
func (l *Local) Workdir(uid string) string {
	if ra := l.runAs.Load(); ra != nil {
		return filepath.Join(ra.workRoot, uid)
	}
	return filepath.Join(l.Root, uid, "work")
}

// Provision implements Provider. A second call for a live sandbox answers
// its endpoint; one for a sandbox whose server is gone (the worker
// restarted) starts a new server over the same directory, on spec.Port
// when that port is free, else on a new one, and marks the runs the old
// server left running as killed.
func (l *Local) Provision(_ context.Context, spec Spec) (Endpoint, error) {
	dir, err := l.dir(spec.UID)
	if err != nil {
		return Endpoint{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.servers[spec.UID]; ok {
		return s.endpoint, nil
	}
	_, statErr := os.Stat(dir)
	fresh := os.IsNotExist(statErr)
	s, err := l.start(spec, dir)
	if err != nil {
		if fresh {
			// A first provisioning that failed leaves nothing behind, so
			// the host holds no trace of a sandbox that never ran.
			_ = os.RemoveAll(l.Workdir(spec.UID))
			_ = os.RemoveAll(dir)
		}
		return Endpoint{}, err
	}
	l.servers[spec.UID] = s
	return s.endpoint, nil
}

// start makes uid's directories and starts its SSH server; a host that
// cannot confine commands is refused before anything is made.
func (l *Local) start(spec Spec, dir string) (*server, error) {
	confine, err := l.confinement()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o700); err != nil {
		return nil, err
	}
	work, err := l.makeWorkdir(spec.UID)
	if err != nil {
		return nil, err
	}
	return newServer(spec, work, filepath.Join(dir, "runs"), l.credential(), l.Listen, l.Env, confine)
}

// SetUnconfined makes commands run unconfined, as the user RunAs chose and
// with the host's view: for a sandbox agent, whose Pod is the boundary,
// and for a single-user machine whose owner opted in with
// UnisolatedSetting. Call it before the first Provision.
func (l *Local) SetUnconfined(on bool) { l.unconfined.Store(on) }

// Unconfined reports whether commands run unconfined (see SetUnconfined).
func (l *Local) Unconfined() bool { return l.unconfined.Load() }

// confinement is how new sandboxes' commands are confined: bubblewrap,
// checked by a probe as the user commands run as, unless SetUnconfined.
func (l *Local) confinement() (confinement, error) {
	c := confinement{maxProcesses: l.MaxProcesses, diskQuota: l.DiskQuota}
	if c.maxProcesses <= 0 {
		c.maxProcesses = DefaultMaxProcesses
	}
	if c.diskQuota <= 0 {
		c.diskQuota = DefaultDiskQuota
	}
	if l.unconfined.Load() {
		return c, nil
	}
	find := l.findBwrap
	if find == nil {
		find = bwrapPath
	}
	bwrap, err := find()
	if err != nil {
		return c, err
	}
	if err := probeConfinement(bwrap, l.credential()); err != nil {
		return c, err
	}
	c.bwrap = bwrap
	return c, nil
}

// Destroy implements Provider: it closes the port, kills running commands
// and deletes the working directory; run records stay.
func (l *Local) Destroy(_ context.Context, uid string) error {
	if _, err := l.dir(uid); err != nil {
		return err
	}
	l.Stop(uid)
	return os.RemoveAll(l.Workdir(uid))
}

// Stop closes uid's SSH server, killing its running commands, and keeps
// its runs and working directory (a sandbox agent shutting down).
func (l *Local) Stop(uid string) {
	l.mu.Lock()
	s, ok := l.servers[uid]
	delete(l.servers, uid)
	l.mu.Unlock()
	if ok {
		s.close()
	}
}

// Live reports whether uid's SSH server is up in this process.
func (l *Local) Live(uid string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.servers[uid]
	return ok
}

// Runs implements Inspector, oldest first.
func (l *Local) Runs(uid string) ([]Run, error) {
	dir, err := l.dir(uid)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(filepath.Join(dir, "runs"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var runs []Run
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, "runs", e.Name()))
		if err != nil {
			return nil, err
		}
		var r Run
		if json.Unmarshal(b, &r) != nil {
			continue // a record being rewritten; the next read sees it
		}
		if r.Status == RunRunning {
			if live, err := os.ReadFile(filepath.Join(dir, "runs", strings.TrimSuffix(e.Name(), ".json")+".out")); err == nil {
				r.Output = string(live)
			}
		}
		runs = append(runs, r)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Seq < runs[j].Seq })
	return runs, nil
}

// Resolve maps rel to a path inside uid's working directory, refusing
// absolute paths, "..", and symlinks that lead outside.
func (l *Local) Resolve(uid, rel string) (string, error) {
	if _, err := l.dir(uid); err != nil {
		return "", err
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if rel == "" || filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || strings.ContainsRune(rel, 0) {
		return "", fmt.Errorf("%w: %q", ErrPathOutside, rel)
	}
	root, err := filepath.EvalSymlinks(l.Workdir(uid))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	full, err := filepath.EvalSymlinks(filepath.Join(root, clean))
	if err != nil {
		return "", fmt.Errorf("%w: %q", ErrNotFound, rel)
	}
	if full != root && !strings.HasPrefix(full, root+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %q", ErrPathOutside, rel)
	}
	return full, nil
}

// ReadFile implements Inspector. Resolve refuses bad paths early; the read
// itself goes through readBeneath, so a symlink swapped in after the check
// (sandbox commands run while the worker reads) still cannot leave the
// working directory.
func (l *Local) ReadFile(uid, rel string, max int64) ([]byte, error) {
	if _, err := l.Resolve(uid, rel); err != nil {
		return nil, err
	}
	return readBeneath(l.Workdir(uid), filepath.Clean(filepath.FromSlash(rel)), max)
}

// readBeneath reads the regular file rel of dir through an os.Root, which
// resolves every component beneath dir: a symlink or ".." that leads out
// answers ErrPathOutside at open time, not at an earlier check.
func readBeneath(dir, rel string, max int64) ([]byte, error) {
	f, st, err := openBeneath(dir, rel)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only: a close error loses nothing
	if st.Size() > max {
		return nil, fmt.Errorf("%w: %q is %d bytes, over the %d byte limit", ErrTooLarge, rel, st.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%w: %q grew over the %d byte limit while read", ErrTooLarge, rel, max)
	}
	return b, nil
}

// Files implements Inspector.
func (l *Local) Files(uid string, max int) ([]string, error) {
	root := l.Workdir(uid)
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if len(out) >= max {
			return fs.SkipAll // listed enough; a big tree is not walked to its end
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if os.IsNotExist(err) {
		return nil, nil
	}
	return out, err
}

// listen listens on host (loopback when empty): on port when it is
// positive and free, else on one the OS chooses.
func listen(host string, port int) (net.Listener, error) {
	if host == "" {
		host = "127.0.0.1"
	}
	if port > 0 {
		if ln, err := net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(port))); err == nil {
			return ln, nil
		}
	}
	return net.Listen("tcp", net.JoinHostPort(host, "0"))
}
