package devserver

import (
	"testing"

	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"
)

// The server reads its settings through a Collection: forced search
// attribute reads until settled, the cache after, and workflow updates
// enabled throughout.
func TestBootstrapConfig_ForcesSearchAttributeReadsOnlyUntilSettled(t *testing.T) {
	c := newBootstrapConfig()
	settings := dynamicconfig.NewCollection(c, log.NewNoopLogger())
	forced := dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Get(settings)
	updates := dynamicconfig.FrontendEnableUpdateWorkflowExecution.Get(settings)
	if !forced() || !updates("default") {
		t.Fatalf("before settling: forced reads %v, updates %v; want both on", forced(), updates("default"))
	}
	c.settle()
	if forced() {
		t.Fatal("settled, the server still reads search attributes from the database on every read")
	}
	if !updates("default") {
		t.Fatal("settling turned workflow updates off")
	}
	if a, b := c.GetValue(dynamicconfig.FrontendEnableUpdateWorkflowExecution.Key()), c.GetValue(dynamicconfig.FrontendEnableUpdateWorkflowExecution.Key()); &a[0] != &b[0] {
		t.Fatal("a key answered a new slice on each read; the server's conversion cache expects the same one")
	}
}

// TestBootstrapConfig_HistoryQueuesCheckpointEverySecond: the server reads
// each history queue's checkpoint interval as a duration; a value of
// another type would be dropped and the 30 s default read instead.
func TestBootstrapConfig_HistoryQueuesCheckpointEverySecond(t *testing.T) {
	settings := dynamicconfig.NewCollection(newBootstrapConfig(), log.NewNoopLogger())
	for name, every := range map[string]dynamicconfig.DurationPropertyFn{
		"transfer":   dynamicconfig.TransferProcessorUpdateAckInterval.Get(settings),
		"visibility": dynamicconfig.VisibilityProcessorUpdateAckInterval.Get(settings),
		"timer":      dynamicconfig.TimerProcessorUpdateAckInterval.Get(settings),
	} {
		if got := every(); got != queueCheckpointEvery {
			t.Errorf("the %s queue checkpoints every %v, want %v", name, got, queueCheckpointEvery)
		}
	}
}

// TestBootstrapConfig_BoundsTheHistoryCache: the server reads the host's
// history cache bound as an int; a value of another type would be
// dropped and its default, 128,000 workflows for an hour, read instead.
func TestBootstrapConfig_BoundsTheHistoryCache(t *testing.T) {
	settings := dynamicconfig.NewCollection(newBootstrapConfig(), log.NewNoopLogger())
	if got := dynamicconfig.HistoryCacheHostLevelMaxSize.Get(settings)(); got != historyCacheEntries {
		t.Fatalf("the history cache holds up to %d workflows, want %d", got, historyCacheEntries)
	}
}
