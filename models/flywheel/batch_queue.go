package flywheel

import (
	"slices"
	"strings"
)

// The batchers (OutputBatcher, HeartbeatBatcher) share how a batch is
// taken from their queue: every request already waiting, in arrival
// order, one a rollout.

// ofRollout is a request waiting in a batcher, for a rollout.
type ofRollout interface{ rollout() string }

// serveBatches hands handle each batch taken from queue (nextBatch), for
// as long as the process lives: a batcher's runner.
func serveBatches[T ofRollout](queue <-chan T, max int, handle func(batch []T)) {
	var next []T
	for {
		var batch []T
		batch, next = nextBatch(queue, next, max)
		handle(batch)
	}
}

// nextBatch is a batcher's next batch: the requests left over from its
// last one, or else the first to arrive on queue, and every other one
// already waiting, up to max; a request for a rollout already in the
// batch is left over (rest) for the next one.
func nextBatch[T ofRollout](queue <-chan T, left []T, max int) (batch, rest []T) {
	waiting := left
	if len(waiting) == 0 {
		waiting = append(waiting, <-queue)
	}
	for len(waiting) < max {
		select {
		case x := <-queue:
			waiting = append(waiting, x)
		default:
			return distinctByRollout(waiting, max)
		}
	}
	return distinctByRollout(waiting, max)
}

// distinctByRollout splits waiting into a batch of at most max requests
// of distinct rollouts, in arrival order, and the rest.
func distinctByRollout[T ofRollout](waiting []T, max int) (batch, rest []T) {
	seen := make(map[string]bool, len(waiting))
	for _, x := range waiting {
		if len(batch) == max || seen[x.rollout()] {
			rest = append(rest, x)
			continue
		}
		seen[x.rollout()] = true
		batch = append(batch, x)
	}
	return batch, rest
}

// inLockOrder is batch sorted by rollout id: the order in which a batch
// statement, walking its input in order through the primary key, locks
// the rows. Every batch locks in this one order, so two batches holding
// some of the same rollouts (repeats of an output, a heartbeat crossing
// an output, two api replicas) wait for each other instead of each
// holding what the other needs until PostgreSQL aborts one as a
// deadlock (TestBatches_LockTheirRowsInOneOrderWhateverTheArrival).
func inLockOrder[T ofRollout](batch []T) []T {
	return slices.SortedFunc(slices.Values(batch), func(x, y T) int { return strings.Compare(x.rollout(), y.rollout()) })
}
