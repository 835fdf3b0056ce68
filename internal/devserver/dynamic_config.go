package devserver

import (
	"sync/atomic"
	"time"

	"go.temporal.io/server/common/dynamicconfig"
)

// bootstrapConfig is the embedded server's dynamic config. Until it is
// settled it forces every read of the namespace's search attributes to
// the database (ForceSearchAttributesCacheRefreshOnRead), so attributes
// registered while Gatehouse starts are visible at once; settled, the
// server reads them from its caches, as a cluster does. Left forced, every
// workflow task and visibility write re-reads the cluster metadata and
// the namespace from SQLite under a global lock: in a burst of 5,000
// rollouts that was an eighth of everything the process allocated.
//
// Its history queues checkpoint every queueCheckpointEvery, not every
// 30 s: a queue forgets the tasks it has finished only at a checkpoint,
// and until then each new batch of tasks splits its slice by copying a
// map of every task it still holds. In a burst of 5,000 rollouts those
// copies were a third of everything the process allocated, and the
// collections they set off stalled the api's requests.
//
// Each key answers the same slice on every read, as the server's
// conversion cache expects of a client.
type bootstrapConfig struct {
	values  dynamicconfig.StaticClient
	settled atomic.Bool
}

// queueCheckpointEvery is how often the dev server's history queues
// checkpoint: each checkpoint writes the shard's queue state and deletes
// the tasks done, a few small writes a second.
const queueCheckpointEvery = time.Second

// historyCacheEntries bounds the workflows whose mutable state the dev
// server keeps loaded. The server's own default, 128,000 for an hour,
// kept every rollout finished in the last hour: the dev process grew to
// 1 GB over three rounds of 5,000 rollouts (BenchmarkFlywheelPaced), and
// each collection marked all of it. With this bound it stays near
// 460 MB; a workflow not cached is read back from SQLite when its next
// task comes.
const historyCacheEntries = 1024

// newBootstrapConfig is the dev server's dynamic config, not yet settled.
func newBootstrapConfig() *bootstrapConfig {
	on := []dynamicconfig.ConstrainedValue{{Value: true}}
	checkpoint := []dynamicconfig.ConstrainedValue{{Value: queueCheckpointEvery}}
	return &bootstrapConfig{values: dynamicconfig.StaticClient{
		dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key(): on,
		dynamicconfig.FrontendEnableUpdateWorkflowExecution.Key():   on,
		dynamicconfig.TransferProcessorUpdateAckInterval.Key():      checkpoint,
		dynamicconfig.VisibilityProcessorUpdateAckInterval.Key():    checkpoint,
		dynamicconfig.TimerProcessorUpdateAckInterval.Key():         checkpoint,
		dynamicconfig.HistoryCacheHostLevelMaxSize.Key():            []dynamicconfig.ConstrainedValue{{Value: historyCacheEntries}},
	}}
}

// GetValue answers the server's read of key: the forced reads' setting
// is gone once settled.
func (c *bootstrapConfig) GetValue(key dynamicconfig.Key) []dynamicconfig.ConstrainedValue {
	if key == dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key() && c.settled.Load() {
		return nil
	}
	return c.values.GetValue(key)
}

// settleAfter is how long Settle keeps reads forced: past two refreshes
// of the server's namespace cache (system.namespaceCacheRefreshInterval,
// 2 s), so the cached namespace holds any attribute registered just
// before.
const settleAfter = 5 * time.Second

// Settle makes the server read search attributes from its caches once
// settleAfter has passed. Call it after registering the attributes
// Gatehouse needs; one registered later (by hand, with the Temporal CLI)
// shows within the caches' refresh, a minute.
func (s *Server) Settle() {
	time.AfterFunc(settleAfter, s.dynamic.settle)
}

// settle ends the forced reads.
func (c *bootstrapConfig) settle() { c.settled.Store(true) }
