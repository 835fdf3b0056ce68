package app

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gatehouse/gatehouse/api/platform"
)

// startWorkerHealth serves the worker role's probes and metrics on
// GATEHOUSE_WORKER_HEALTH_ADDR when it is set. Readiness needs both the
// database and Temporal (a worker that cannot reach Temporal polls
// nothing), and /metrics carries gatehouse_dependency_up for both; the
// server's lifetime is the role's, so a failed listener ends the worker
// like a failed API would.
func (s *services) startWorkerHealth() error {
	if s.cfg.WorkerHealthAddr == "" {
		return nil
	}
	checks := platform.WorkerDependencyChecks(s.db, s.temporal, s.cfg.TemporalNamespace)
	if err := s.tel.Registry.Register(platform.NewDependencyCollector(checks)); err != nil {
		return fmt.Errorf("worker health: dependency gauge: %w", err)
	}
	metrics := promhttp.HandlerFor(s.tel.Registry, promhttp.HandlerOpts{})
	h, err := startHTTP(s.cfg.WorkerHealthAddr, platform.HealthHandler(checks, metrics), s.log)
	if err != nil {
		return fmt.Errorf("worker health: listen on %s: %w", s.cfg.WorkerHealthAddr, err)
	}
	s.http = h
	s.log.Info("worker health listening", "addr", h.Addr())
	return nil
}
