package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Holding lists the sandboxes whose working directory is left on this
// host; one whose machine Destroy removed (its run records stay) is not a
// machine to reap.
func TestLocal_HoldingListsWorkdirsNotRunRecords(t *testing.T) {
	root := t.TempDir()
	l := LocalAt(root)
	for _, d := range []string{"sbx_a/work", "sbx_b/runs", "not a uid/work"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	got, err := l.Holding(context.Background())
	if err != nil || len(got) != 1 || got[0] != "sbx_a" {
		t.Fatalf("holding %v %v", got, err)
	}
	if err := l.Destroy(context.Background(), "sbx_a"); err != nil {
		t.Fatal(err)
	}
	if got, _ := l.Holding(context.Background()); len(got) != 0 {
		t.Fatalf("holding after destroy: %v", got)
	}
}
