package app

import (
	"context"
	"fmt"
	"io"
	"os"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/telemetry"
	"github.com/gatehouse/gatehouse/models"
	"github.com/gatehouse/gatehouse/models/platform"
)

// base opens what every production role needs: logs, telemetry, database.
func base(ctx context.Context, cfg config.Config, logOut io.Writer) (*services, error) {
	return baseAs(ctx, cfg, logOut, telemetry.DefaultServiceName)
}

// baseAs is base with the service name the role's traces carry.
func baseAs(ctx context.Context, cfg config.Config, logOut io.Writer, service string) (*services, error) {
	if cfg.DatabaseURL == "" {
		return nil, fmt.Errorf("GATEHOUSE_DATABASE_URL is required (postgres://…); use `gatehouse dev` for the embedded stack")
	}
	s := &services{cfg: cfg, log: telemetry.NewLogger(logOut, cfg.LogLevel)}
	tel, err := telemetry.New(ctx, cfg.OTLPEndpoint, telemetry.WithServiceName(service))
	if err != nil {
		return nil, err
	}
	s.tel = tel
	db, err := openDatabase(cfg.DatabaseURL, cfg.DatabasePool, tel.Registry)
	if err != nil {
		return nil, err
	}
	s.db = db
	return s, nil
}

// Migrate applies pending migrations and exits.
func Migrate(ctx context.Context, cfg config.Config) error {
	s, err := base(ctx, cfg, os.Stderr)
	if err != nil {
		return err
	}
	defer func() { _ = s.close() }() // the migration's own error is the one that matters
	return models.Migrate(s.db, s.log)
}

// API serves HTTP against an external Temporal and PostgreSQL until ctx ends.
func API(ctx context.Context, cfg config.Config) error {
	s, err := connected(ctx, cfg, telemetry.APIServiceName, func(s *services) error {
		return storeBootstrapOperator(ctx, s.db, cfg.BootstrapOperatorToken)
	})
	if err != nil {
		return err
	}
	if err := s.openHeartbeatPool(); err != nil {
		_ = s.close() // the pool's error is the one to report
		return err
	}
	if err := s.startPublicAPI(); err != nil {
		_ = s.close() // the start error is the one to report
		return err
	}
	s.log.Info("api listening", "addr", s.http.Addr(), "temporal", cfg.TemporalAddress, "namespace", cfg.TemporalNamespace)
	return s.waitForShutdown(ctx)
}

// Worker runs the Temporal worker until ctx ends.
func Worker(ctx context.Context, cfg config.Config) error {
	s, err := connected(ctx, cfg, telemetry.WorkerServiceName, nil)
	if err != nil {
		return err
	}
	ensureSearchAttributes(ctx, s.temporal, cfg.TemporalNamespace, s.log)
	if err := s.startWorker(); err != nil {
		_ = s.close() // the start error is the one to report
		return err
	}
	if err := s.startWorkerHealth(); err != nil {
		_ = s.close() // the start error is the one to report
		return err
	}
	s.log.Info("worker polling", "task_queue", cfg.TaskQueue, "temporal", cfg.TemporalAddress, "namespace", cfg.TemporalNamespace)
	return s.waitForShutdown(ctx)
}

// storeBootstrapOperator stores GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN (if set)
// as an operator credential, so a fresh deployment has a first operator.
func storeBootstrapOperator(ctx context.Context, db *gorm.DB, token string) error {
	if token == "" {
		return nil
	}
	if _, err := platform.BootstrapOperator(ctx, db, token); err != nil {
		return fmt.Errorf("GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN: %w", err)
	}
	return nil
}

// connected opens a production role's services on a migrated database,
// runs prepare (may be nil) and dials Temporal; on error nothing is left open.
func connected(ctx context.Context, cfg config.Config, service string, prepare func(*services) error) (*services, error) {
	s, err := baseAs(ctx, cfg, os.Stderr, service)
	if err != nil {
		return nil, err
	}
	err = s.requireMigrated()
	if err == nil && prepare != nil {
		err = prepare(s)
	}
	if err == nil {
		err = s.connect(ctx)
	}
	if err != nil {
		_ = s.close() // the connect error is the one to report
		return nil, err
	}
	return s, nil
}

// connect opens the blob store and dials Temporal.
func (s *services) connect(ctx context.Context) error {
	blobs, err := blobstore.FromConfig(s.cfg)
	if err != nil {
		return fmt.Errorf("blob store: %w", err)
	}
	s.blobs = blobs
	c, err := dialTemporal(ctx, s.cfg, s.tel, s.log)
	if err != nil {
		return err
	}
	s.temporal = c
	return nil
}

// requireMigrated refuses to serve a database behind the code's schema.
func (s *services) requireMigrated() error {
	pending, err := models.PendingMigrations(s.db)
	if err != nil {
		return fmt.Errorf("check migrations: %w", err)
	}
	if len(pending) > 0 {
		return fmt.Errorf("database has %d pending migrations (first %s): run `gatehouse migrate`", len(pending), pending[0])
	}
	return nil
}
