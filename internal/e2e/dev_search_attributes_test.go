package e2e

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/devserver"
	"github.com/gatehouse/gatehouse/workflows/platform"
)

// A dev database made by a release that lacked a search attribute gets it
// when this release starts on it, and workflows that set it run: the
// embedded server no longer re-reads attributes on every read once
// started, so one missing at start would otherwise fail every workflow
// that sets it.
func TestDev_AnEarlierDatabaseGetsTheSearchAttributesAddedSince(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg, err := config.FromLookup(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	earlier := platform.SearchAttributes()
	delete(earlier, platform.KindKey.GetName())
	old, err := devserver.Start(devserver.Options{DatabasePath: filepath.Join(dir, "temporal.db"), FrontendAddr: "127.0.0.1:0",
		Namespace: cfg.TemporalNamespace, SearchAttributes: earlier})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Stop(); err != nil {
		t.Fatal(err)
	}

	s := StartStack(t, StackOptions{DataDir: dir})
	tc, err := client.Dial(client.Options{HostPort: s.TemporalAddr, Namespace: cfg.TemporalNamespace, Logger: quietSDKLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	have, err := tc.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: cfg.TemporalNamespace})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := have.GetCustomAttributes()[platform.KindKey.GetName()]; !ok {
		t.Fatalf("%s was not registered on the earlier database: %v", platform.KindKey.GetName(), have.GetCustomAttributes())
	}
	// A ping sets the attribute; past the server's settling (forced reads
	// end 5 s after start) it must still complete.
	time.Sleep(6 * time.Second)
	pong(t, s, holdPing(t, s, "kind"))
}
