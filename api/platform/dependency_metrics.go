package platform

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
)

// dependencyUpDesc describes gatehouse_dependency_up.
var dependencyUpDesc = prometheus.NewDesc("gatehouse_dependency_up",
	"1 when the dependency answered its probe at scrape time, 0 when it did not.",
	[]string{"dependency"}, nil)

// DependencyCollector exports gatehouse_dependency_up{dependency=…} for
// every dependency, probed when Prometheus scrapes, so an alert on Temporal
// works even though Temporal does not decide the API's readiness.
type DependencyCollector struct {
	deps Dependencies
}

// NewDependencyCollector returns a collector probing deps on each scrape.
func NewDependencyCollector(deps Dependencies) *DependencyCollector {
	return &DependencyCollector{deps: deps}
}

// Describe implements prometheus.Collector.
func (c *DependencyCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- dependencyUpDesc
}

// Collect implements prometheus.Collector.
func (c *DependencyCollector) Collect(ch chan<- prometheus.Metric) {
	results := c.deps.probe(context.Background())
	for _, name := range c.deps.names() {
		up := 0.0
		if results[name] == nil {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(dependencyUpDesc, prometheus.GaugeValue, up, name)
	}
}
