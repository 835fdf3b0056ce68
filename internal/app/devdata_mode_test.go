package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

func TestPrivateDataDir_NewAndOpenDataDirsEndOwnerOnly(t *testing.T) {
	t.Parallel()
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{open, filepath.Join(t.TempDir(), "a", "new")} {
		if err := privateDataDir(dir); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v, want 0700", dir, st.Mode(), err)
		}
	}
}

func TestEnsureDevCredentials_AReadableCredentialsFileIsTightened(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		dir := t.TempDir()
		ctx := context.Background()
		first, err := ensureDevCredentials(ctx, db, dir, "", "")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "dev-credentials.json")
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("new credentials file: %v %v", st.Mode(), err)
		}
		// An older version left it readable; the restart keeps its keys.
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		again, err := ensureDevCredentials(ctx, db, dir, "", "")
		if err != nil || again != first {
			t.Fatalf("restart: %+v %v, want %+v", again, err, first)
		}
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("credentials file after a restart: %v %v, want 0600", st.Mode(), err)
		}
	})
}

func TestBanner_WarnsWhenSandboxesMayRunUnisolated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		unisolated, sandboxes, warn bool
	}{{true, true, true}, {false, true, false}, {true, false, false}} {
		cfg := config.Config{}
		cfg.Sandbox.UnisolatedIUnderstand, cfg.Features.Sandboxes = tc.unisolated, tc.sandboxes
		d := &DevStack{svc: &services{cfg: cfg}}
		if got := strings.Contains(d.Banner(), "GATEHOUSE_SANDBOX_UNISOLATED_I_UNDERSTAND is on"); got != tc.warn {
			t.Errorf("%+v: warning shown %v\n%s", tc, got, d.Banner())
		}
	}
}
