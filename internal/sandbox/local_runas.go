package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// runAs is how a root worker drops privileges for sandbox commands: the
// credential they run with, and a root for working directories that user
// can reach (Root sits in the worker's data directory, which it must not).
type runAs struct {
	user     string
	cred     *syscall.Credential
	workRoot string
}

// RunAs makes sandbox commands run as name — a user name, a numeric uid, or
// uid:gid — with no supplementary groups, each in a working directory that
// user owns, under a traversable directory outside Root. It applies only
// when this process runs as root (geteuid 0); otherwise, and for "root",
// commands keep this process's user and working directories stay under
// Root, which is how a non-root worker runs. Either way each command runs
// confined by bubblewrap (see Local), in a mount namespace holding only
// its working directory, so the user matters for what it owns on the
// host, not for what it can see. Call it before the first Provision.
func (l *Local) RunAs(name string) error {
	if os.Geteuid() != 0 || name == "" || name == "root" {
		l.runAs.Store(nil)
		return nil
	}
	cred, err := lookupCredential(name)
	if err != nil {
		return err
	}
	if cred.Uid == 0 {
		l.runAs.Store(nil)
		return nil
	}
	sum := sha256.Sum256([]byte(l.Root))
	l.runAs.Store(&runAs{user: name, cred: cred,
		workRoot: filepath.Join(os.TempDir(), "gatehouse-sandboxes-"+hex.EncodeToString(sum[:6]))})
	return nil
}

// RunsAs names the user commands run as ("" when this process's own).
func (l *Local) RunsAs() string {
	if ra := l.runAs.Load(); ra != nil {
		return ra.user
	}
	return ""
}

// lookupCredential resolves a user name, a uid, or uid:gid.
func lookupCredential(name string) (*syscall.Credential, error) {
	if u, g, ok := strings.Cut(name, ":"); ok {
		uid, err1 := strconv.ParseUint(u, 10, 32)
		gid, err2 := strconv.ParseUint(g, 10, 32)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("sandbox: run-as %q: want a user name, a uid or uid:gid", name)
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
	}
	var (
		u   *user.User
		err error
	)
	if _, perr := strconv.ParseUint(name, 10, 32); perr == nil {
		u, err = user.LookupId(name)
	} else {
		u, err = user.Lookup(name)
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: run-as user %q: %w", name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("sandbox: run-as user %q has a non-numeric uid or gid", name)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

// makeWorkdir creates uid's working directory: under Root for this
// process's user, or owned by the run-as user under a root-owned,
// traversable, unlistable directory.
func (l *Local) makeWorkdir(uid string) (string, error) {
	ra := l.runAs.Load()
	if ra == nil {
		work := l.Workdir(uid)
		return work, os.MkdirAll(work, 0o700)
	}
	if err := os.MkdirAll(ra.workRoot, 0o711); err != nil {
		return "", err
	}
	// The work root sits in a shared temporary directory: refuse one that
	// another user planted or that is a symlink.
	st, err := os.Lstat(ra.workRoot)
	if err != nil {
		return "", err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || !ok || int(sys.Uid) != os.Geteuid() {
		return "", fmt.Errorf("sandbox: %s is not a directory owned by this process's user", ra.workRoot)
	}
	if err := os.Chmod(ra.workRoot, 0o711); err != nil {
		return "", err
	}
	work := filepath.Join(ra.workRoot, uid)
	if err := os.Mkdir(work, 0o700); err != nil && !os.IsExist(err) {
		return "", err
	}
	if err := os.Lchown(work, int(ra.cred.Uid), int(ra.cred.Gid)); err != nil {
		return "", err
	}
	return work, os.Chmod(work, 0o700)
}

// credential is what commands run with (nil: this process's user).
func (l *Local) credential() *syscall.Credential {
	if ra := l.runAs.Load(); ra != nil {
		return ra.cred
	}
	return nil
}
