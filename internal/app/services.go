package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api"
	"github.com/gatehouse/gatehouse/api/platform"
	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/telemetry"
	"github.com/gatehouse/gatehouse/worker"
)

// services is what a running role holds; close stops it in reverse order.
type services struct {
	cfg config.Config
	log *slog.Logger
	tel *telemetry.Telemetry
	db  *gorm.DB
	// heartbeatDB is the api's pool for lease heartbeats (nil on SQLite).
	heartbeatDB *gorm.DB
	temporal    client.Client
	blobs       blobstore.Store
	worker      sdkworker.Worker
	http        *httpServer
	// metrics is the api role's metrics listener (GATEHOUSE_METRICS_ADDR).
	metrics *httpServer
	// stops run after the rest, last registered first (e.g. the dev server).
	stops []func() error
}

func (s *services) startWorker() error {
	hostQueue, err := worker.HostQueue(s.cfg)
	if err != nil {
		return err
	}
	w := worker.New(s.temporal, s.cfg.TaskQueue, worker.Dependencies{DB: s.db, Blobs: s.blobs, Config: s.cfg, Log: s.log, HostQueue: hostQueue})
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	s.worker = w
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := worker.EnsureResearchSchedules(ctx, s.temporal, s.cfg); err != nil {
		return err
	}
	if s.cfg.Features.Sandboxes {
		// Best effort: a worker that cannot list sandboxes still serves
		// everything else; the next start tries again.
		if err := worker.ResumeSandboxes(ctx, s.temporal); err != nil {
			s.log.Warn("sandboxes not resumed", "err", err)
		}
	}
	return nil
}

// startAPI serves the whole API on GATEHOUSE_HTTP_ADDR (dev: one local
// listener for everything).
func (s *services) startAPI() error {
	return s.startAPIHandler(func(h http.Handler) http.Handler { return h })
}

// startAPIHandler serves public(the API) on GATEHOUSE_HTTP_ADDR.
func (s *services) startAPIHandler(public func(http.Handler) http.Handler) error {
	// The same dependencies /readyz probes (api.New builds its own copy).
	deps := platform.DependencyChecks(s.db, s.temporal, s.cfg.TemporalNamespace)
	if err := s.tel.Registry.Register(platform.NewDependencyCollector(deps)); err != nil {
		return fmt.Errorf("dependency gauge: %w", err)
	}
	srv, err := api.New(api.Deps{Config: s.cfg, DB: s.db, HeartbeatDB: s.heartbeatDB, Temporal: s.temporal, Blobs: s.blobs, Telemetry: s.tel, Log: s.log})
	if err != nil {
		return err
	}
	h, err := startHTTP(s.cfg.HTTPAddr, public(srv.Engine), s.log)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.HTTPAddr, err)
	}
	s.http = h
	return nil
}

// close shuts down gracefully: stop accepting and drain HTTP (within
// GATEHOUSE_SHUTDOWN_TIMEOUT), stop the worker (it stops polling and waits
// up to GATEHOUSE_WORKER_STOP_TIMEOUT for in-flight activities to finish;
// the client stays open meanwhile, so they heartbeat and report), close the
// client, then whatever else was started (the embedded server last).
func (s *services) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	var errs []error
	if s.http != nil {
		errs = append(errs, s.http.shutdown(ctx))
	}
	if s.metrics != nil {
		errs = append(errs, s.metrics.shutdown(ctx))
	}
	if s.worker != nil {
		s.log.Info("worker draining in-flight activities", "stop_timeout", s.cfg.WorkerStopTimeout.String())
		s.worker.Stop()
		s.log.Info("worker stopped")
	}
	if s.temporal != nil {
		s.temporal.Close()
	}
	for _, db := range []*gorm.DB{s.heartbeatDB, s.db} {
		if db == nil {
			continue
		}
		if sqlDB, err := db.DB(); err == nil {
			errs = append(errs, sqlDB.Close())
		}
	}
	for i := len(s.stops) - 1; i >= 0; i-- {
		errs = append(errs, s.stops[i]())
	}
	if s.tel != nil {
		flush, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		errs = append(errs, s.tel.Shutdown(flush))
		cancel()
	}
	return errors.Join(errs...)
}

// waitForShutdown blocks until ctx ends or an HTTP server fails.
func (s *services) waitForShutdown(ctx context.Context) error {
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-s.http.doneOrNil():
	case serveErr = <-s.metrics.doneOrNil():
	}
	s.log.Info("shutting down")
	return errors.Join(serveErr, s.close())
}
