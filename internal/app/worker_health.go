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
	h, err := s.startProbes("worker health", s.cfg.WorkerHealthAddr, checks)
	if err != nil {
		return err
	}
	s.http = h
	return nil
}

// startProbes serves /healthz, /readyz (on checks) and /metrics on addr,
// the listener of a role's probes and scrapes, named what in errors and
// logs.
func (s *services) startProbes(what, addr string, checks platform.Dependencies) (*httpServer, error) {
	metrics := promhttp.HandlerFor(s.tel.Registry, promhttp.HandlerOpts{})
	h, err := startHTTP(addr, platform.HealthHandler(checks, metrics), s.log)
	if err != nil {
		return nil, fmt.Errorf("%s: listen on %s: %w", what, addr, err)
	}
	s.log.Info(what+" listening", "addr", h.Addr())
	return h, nil
}
