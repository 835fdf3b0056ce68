package buildinfo

import "github.com/prometheus/client_golang/prometheus"

// Collector exports gatehouse_build_info{version,commit,go_version} 1, the
// conventional way to put the running build on every dashboard.
func Collector() prometheus.Collector {
	i := Get()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "gatehouse_build_info",
		Help:        "The running build of Gatehouse (always 1).",
		ConstLabels: prometheus.Labels{"version": i.Version, "commit": i.Commit, "go_version": i.GoVersion},
	})
	g.Set(1)
	return g
}
