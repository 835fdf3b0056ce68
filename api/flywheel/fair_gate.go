package flywheel

import (
	"context"

	"gorm.io/gorm"
)

// fairGate admits requests to a bounded connection pool in the order they
// arrived. database/sql hands a freed connection to a random waiter
// (connRequestSet.TakeRandom), so when more heartbeats are in flight than
// the pool has connections, one request can lose that draw again and
// again: the tail grows with the queue instead of with the work ahead of
// it. A request that holds a slot of the gate always finds a connection;
// those waiting for a slot wait on a channel, whose waiters are served
// first come, first served.
type fairGate chan struct{}

// newFairGate is a gate with one slot per connection db may open; nil
// (admit everyone) for a pool without a bound or whose pool cannot be read.
func newFairGate(db *gorm.DB) fairGate {
	sqlDB, err := db.DB()
	if err != nil {
		return nil
	}
	n := sqlDB.Stats().MaxOpenConnections
	if n <= 0 {
		return nil
	}
	return make(fairGate, n)
}

// enter waits for a slot, or for ctx to end (its error is returned).
func (g fairGate) enter(ctx context.Context) error {
	if g == nil {
		return nil
	}
	select {
	case g <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leave gives the slot back; every successful enter is paired with one.
func (g fairGate) leave() {
	if g != nil {
		<-g
	}
}
