package models

import (
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Pool bounds one process's PostgreSQL connections. Every api and worker
// replica opens its own pool on the same server, next to Temporal's, so
// the sum must stay under the server's max_connections (100 by default):
// with the default of 16, two api and two worker replicas hold at most 64,
// which leaves room for a Temporal cluster's pools (24 in the production
// topology's configuration) and administrative sessions. A request that
// finds the pool busy waits for a connection (bounded by its context)
// instead of failing.
type Pool struct {
	// MaxOpen is the most connections open at once.
	MaxOpen int
	// MaxIdle is how many stay open while idle (at most MaxOpen), so a
	// burst does not close and re-dial connections.
	MaxIdle int
	// MaxLifetime recycles a connection after this long (0: never), so
	// a server restart or failover is followed by fresh sessions.
	MaxLifetime time.Duration
}

// DefaultPool is the pool of a process that sets nothing.
var DefaultPool = Pool{MaxOpen: 16, MaxIdle: 16, MaxLifetime: 30 * time.Minute}

// ErrPool is returned for pool bounds that cannot work.
var ErrPool = errors.New("database pool")

// Check refuses bounds that cannot work.
func (p Pool) Check() error {
	if p.MaxOpen < 1 || p.MaxOpen > 1000 {
		return fmt.Errorf("%w: max open connections must be 1-1000, got %d", ErrPool, p.MaxOpen)
	}
	if p.MaxIdle < 0 || p.MaxIdle > p.MaxOpen {
		return fmt.Errorf("%w: max idle connections must be 0-%d (max open), got %d", ErrPool, p.MaxOpen, p.MaxIdle)
	}
	if p.MaxLifetime < 0 {
		return fmt.Errorf("%w: connection lifetime must not be negative", ErrPool)
	}
	return nil
}

// apply sets the bounds on db's connection pool.
func (p Pool) apply(db *gorm.DB) error {
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	sqlDB.SetMaxOpenConns(p.MaxOpen)
	sqlDB.SetMaxIdleConns(p.MaxIdle)
	sqlDB.SetConnMaxLifetime(p.MaxLifetime)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	return nil
}
