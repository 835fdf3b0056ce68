package app

import (
	"net/http"
	"path"

	"github.com/gatehouse/gatehouse/api/platform"
)

// startAPIMetrics serves the api role's /metrics, with /healthz and
// /readyz beside it, on GATEHOUSE_METRICS_ADDR when it is set: a listener
// of its own, which Prometheus reaches inside the cluster and the Ingress
// never routes, so the public listener keeps its process and domain
// figures to itself. Like the public listener, a failure to serve ends
// the role.
func (s *services) startAPIMetrics() error {
	if s.cfg.MetricsAddr == "" {
		return nil
	}
	h, err := s.startProbes("api metrics", s.cfg.MetricsAddr, platform.DependencyChecks(s.db, s.temporal, s.cfg.TemporalNamespace))
	if err != nil {
		return err
	}
	s.metrics = h
	return nil
}

// withoutMetrics is the api's public handler: every route but /metrics,
// which answers 404 in the API's error envelope as an unknown path does
// (spelled with a trailing slash or dot segments too, since the router
// would redirect those to /metrics).
func withoutMetrics(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if path.Clean("/"+r.URL.Path) == "/metrics" {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":"not_found","message":"no such endpoint"}}`))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// startPublicAPI is the api role's pair of listeners: the metrics one,
// then the public API without /metrics.
func (s *services) startPublicAPI() error {
	if err := s.startAPIMetrics(); err != nil {
		return err
	}
	return s.startAPIHandler(withoutMetrics)
}
