package sandbox

import (
	"errors"
	"os"
	"testing"
)

func TestLocal_FailedFirstProvisioningLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	l := &Local{Root: t.TempDir(), servers: map[string]*server{}}
	if _, err := l.Provision(t.Context(), Spec{UID: "sbx-bad", PublicKey: "ssh-ed25519 not-a-key"}); !errors.Is(err, ErrBadPublicKey) {
		t.Fatalf("provision with a bad key: %v", err)
	}
	if l.Holds("sbx-bad") {
		t.Fatal("a sandbox that never ran left its directory")
	}
	if _, err := os.Stat(l.Workdir("sbx-bad")); !os.IsNotExist(err) {
		t.Fatalf("workdir left behind: %v", err)
	}
}
