package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// hostLayout fakes a host: directories and symlinks by path.
func hostLayout(dirs []string, links map[string]string) hostEntry {
	return func(p string) (bool, string) {
		if l, ok := links[p]; ok {
			return false, l
		}
		return slices.Contains(dirs, p), ""
	}
}

// pairAt reports whether args holds flag followed by values.
func pairAt(args []string, flag string, values ...string) int {
	for i := range args {
		if args[i] == flag && i+len(values) < len(args) && slices.Equal(args[i+1:i+1+len(values)], values) {
			return i
		}
	}
	return -1
}

func TestBwrapArgs_ConfineToTheWorkdirOnAReadOnlyMinimalRoot(t *testing.T) {
	work := "/var/lib/gatehouse/sandboxes/sbx-a/work"
	for _, tc := range []struct {
		name           string
		host           hostEntry
		binds, symlink [][2]string
		absent         []string
	}{
		{"merged /usr", hostLayout([]string{"/usr"}, map[string]string{"/bin": "usr/bin", "/lib": "usr/lib", "/lib64": "usr/lib64", "/sbin": "usr/sbin"}),
			[][2]string{{"/usr", "/usr"}}, [][2]string{{"usr/bin", "/bin"}, {"usr/lib", "/lib"}, {"usr/lib64", "/lib64"}}, []string{"/lib32", "/libx32"}},
		{"split /usr", hostLayout([]string{"/usr", "/bin", "/lib", "/sbin"}, nil),
			[][2]string{{"/usr", "/usr"}, {"/bin", "/bin"}, {"/lib", "/lib"}, {"/sbin", "/sbin"}}, nil, []string{"/lib64", "/lib32"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := bwrapArgs(work, tc.host)
			for _, want := range [][]string{{"--unshare-all"}, {"--unshare-user"}, {"--die-with-parent"}, {"--new-session"},
				{"--cap-drop", "ALL"}, {"--proc", "/proc"}, {"--dev", "/dev"}, {"--bind", work, work}, {"--chdir", work}} {
				if pairAt(args, want[0], want[1:]...) < 0 {
					t.Errorf("missing %v in %v", want, args)
				}
			}
			for _, b := range tc.binds {
				if pairAt(args, "--ro-bind", b[0], b[1]) < 0 {
					t.Errorf("%s not bound read-only: %v", b[0], args)
				}
			}
			for _, l := range tc.symlink {
				if pairAt(args, "--symlink", l[0], l[1]) < 0 {
					t.Errorf("%s not a symlink to %s: %v", l[1], l[0], args)
				}
			}
			for _, a := range tc.absent {
				if slices.Contains(args, a) {
					t.Errorf("absent %s is mounted: %v", a, args)
				}
			}
			for _, shared := range []string{"--share-net", "--cap-add", "/home", "/root", "/var", "/run", "/etc"} {
				if slices.Contains(args, shared) {
					t.Errorf("%s in %v", shared, args)
				}
			}
			for _, a := range args {
				if strings.HasPrefix(a, "/etc/") && pairAt(args, "--ro-bind-try", a, a) < 0 {
					t.Errorf("%s is not bound read-only", a)
				}
				if a == "/etc/shadow" || a == "/etc/gshadow" {
					t.Errorf("%s is visible", a)
				}
			}
			tmp, bind := pairAt(args, "--tmpfs", "/tmp"), pairAt(args, "--bind", work, work)
			if tmp < 0 || args[tmp-2] != "--size" || bind < tmp {
				t.Errorf("want a sized tmpfs /tmp before the workdir bind: %v", args)
			}
			if args[len(args)-2] != "--remount-ro" || args[len(args)-1] != "/" {
				t.Errorf("the root is not remounted read-only last: %v", args)
			}
			if got := bwrapArgs("", tc.host); slices.Contains(got, "--bind") || slices.Contains(got, "--chdir") {
				t.Errorf("the probe binds a workdir: %v", got)
			}
		})
	}
}

// failingBwrap is a bubblewrap that fails as it does on a host that denies
// user namespaces.
func failingBwrap(t *testing.T) func() (string, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return func() (string, error) { return p, nil }
}

func TestLocal_RefusesSandboxesWhereCommandsCannotBeConfined(t *testing.T) {
	missing := func() (string, error) { return lookBwrap(t.TempDir()+":relative/dir", "/nonexistent/bwrap") }
	for name, find := range map[string]func() (string, error){"no user namespaces": failingBwrap(t), "no bubblewrap": missing} {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "sandboxes")
			l := &Local{Root: root, servers: map[string]*server{}, findBwrap: find}
			_, pub := newKey(t)
			_, err := l.Provision(context.Background(), Spec{UID: "sbx-refused", PublicKey: pub, TimeLimit: time.Minute})
			if !errors.Is(err, ErrUnconfined) || !strings.Contains(err.Error(), UnisolatedSetting) {
				t.Fatalf("Provision = %v, want ErrUnconfined naming the opt-in", err)
			}
			if l.Live("sbx-refused") || l.Holds("sbx-refused") {
				t.Fatal("a refused sandbox left a server or records")
			}
			if _, err := os.Stat(l.Workdir("sbx-refused")); !os.IsNotExist(err) {
				t.Fatalf("a refused sandbox left its workdir: %v", err)
			}
			if err := l.Health(context.Background()); !errors.Is(err, ErrUnconfined) {
				t.Fatalf("Health = %v, want ErrUnconfined", err)
			}
		})
	}
}

func TestLocal_UnconfinedOptInRunsCommandsWithoutBubblewrap(t *testing.T) {
	l := &Local{Root: t.TempDir(), servers: map[string]*server{}, findBwrap: failingBwrap(t)}
	l.SetUnconfined(true)
	if err := l.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, c := provisionAndDial(t, l, Spec{UID: "sbx-laptop", TimeLimit: time.Minute})
	if out, err := runCmd(t, c, "echo ran > r.txt && cat r.txt"); err != nil || out != "ran\n" {
		t.Fatalf("unconfined command: %q %v", out, err)
	}
}

func TestLookBwrap_FirstExecutableOnPathElseTheFallback(t *testing.T) {
	dir, noexec := t.TempDir(), t.TempDir()
	exe := filepath.Join(dir, "bwrap")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(noexec, "bwrap"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := lookBwrap(noexec+":"+dir, "/nonexistent"); err != nil || got != exe {
		t.Fatalf("on PATH: %q %v", got, err)
	}
	if got, err := lookBwrap(noexec, exe); err != nil || got != exe {
		t.Fatalf("fallback: %q %v", got, err)
	}
	if _, err := lookBwrap(noexec, "/nonexistent"); !errors.Is(err, ErrUnconfined) {
		t.Fatalf("none: %v", err)
	}
}
