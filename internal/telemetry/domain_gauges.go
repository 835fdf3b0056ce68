package telemetry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"gorm.io/gorm"
)

// domainQuery is one metric read from the database at scrape time: its
// SQL answers the label values in order, then the value.
type domainQuery struct {
	desc *prometheus.Desc
	kind prometheus.ValueType
	sql  string
}

func newDomainQuery(name, help string, kind prometheus.ValueType, sql string, labels ...string) domainQuery {
	return domainQuery{desc: prometheus.NewDesc(name, help, labels, nil), kind: kind, sql: sql}
}

// domainQueries are what an operator pages on. The database is the
// authority for each (the rows the api and activities write), so every
// api replica answers the same values: aggregate with max, not sum. The
// tables are the models' (models/flylab, models/research, models/flywheel);
// a test runs every query on a migrated database.
var domainQueries = []domainQuery{
	newDomainQuery("gatehouse_flylab_pending_approvals", "FlyLab experiments awaiting an operator's approval.", prometheus.GaugeValue,
		`SELECT COUNT(*) FROM flylab_experiments WHERE status = 'awaiting_approval'`),
	newDomainQuery("gatehouse_research_reviews_waiting", "Research review requests waiting for a verdict (requested or started), by reviewer role.", prometheus.GaugeValue,
		`SELECT role, COUNT(*) FROM research_review_requests WHERE status IN ('requested', 'started') GROUP BY role`, "role"),
	newDomainQuery("gatehouse_flywheel_rollouts", "Flywheel rollouts by state (queued, leased, completed, excluded).", prometheus.GaugeValue,
		`SELECT status, COUNT(*) FROM flywheel_rollouts GROUP BY status`, "state"),
	newDomainQuery("gatehouse_flywheel_lease_expiries_total", "Flywheel leases that ended because they expired without a heartbeat.", prometheus.CounterValue,
		`SELECT COUNT(*) FROM flywheel_leases WHERE end_reason = 'expired'`),
	newDomainQuery("gatehouse_llm_gateway_calls_total", "Requests proxied by the flywheel LLM gateway, by endpoint and whether they counted as a completion.", prometheus.CounterValue,
		`SELECT endpoint, CASE WHEN completion THEN 'true' ELSE 'false' END, COUNT(*) FROM flywheel_gateway_calls GROUP BY endpoint, completion`, "endpoint", "completion"),
}

var domainScrapeOK = prometheus.NewDesc("gatehouse_domain_metrics_up",
	"1 when every domain metric was read from the database at this scrape, 0 when a query failed (its metric is missing).", nil, nil)

// domainCollector reads domainQueries at each scrape, bounded by timeout.
type domainCollector struct {
	db      *gorm.DB
	timeout time.Duration
}

// RegisterDomainMetrics exports the domain gauges and counters read from
// db on t's registry; registering twice is a no-op.
func (t *Telemetry) RegisterDomainMetrics(db *gorm.DB) error {
	if db == nil {
		return nil
	}
	err := t.Registry.Register(domainCollector{db: db, timeout: 2 * time.Second})
	if are := (prometheus.AlreadyRegisteredError{}); errors.As(err, &are) {
		return nil
	}
	return err
}

// Describe sends every domain metric's description.
func (c domainCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, q := range domainQueries {
		ch <- q.desc
	}
	ch <- domainScrapeOK
}

// Collect runs every query; one that fails leaves its metric out and
// gatehouse_domain_metrics_up at 0.
func (c domainCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	up := 1.0
	for _, q := range domainQueries {
		if err := c.collect(ctx, q, ch); err != nil {
			up = 0
		}
	}
	ch <- prometheus.MustNewConstMetric(domainScrapeOK, prometheus.GaugeValue, up)
}

func (c domainCollector) collect(ctx context.Context, q domainQuery, ch chan<- prometheus.Metric) error {
	rows, err := c.db.WithContext(ctx).Raw(q.sql).Rows()
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	// Nothing is sent until every row scanned: a failed query sends none.
	var out []prometheus.Metric
	for rows.Next() {
		cols, err := rows.Columns()
		if err != nil {
			return err
		}
		labels := make([]string, len(cols)-1)
		var value float64
		dst := make([]any, len(cols))
		for i := range labels {
			dst[i] = &labels[i]
		}
		dst[len(cols)-1] = &value
		if err := rows.Scan(dst...); err != nil {
			return fmt.Errorf("%s: %w", q.sql, err)
		}
		m, err := prometheus.NewConstMetric(q.desc, q.kind, value, labels...)
		if err != nil {
			return err
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, m := range out {
		ch <- m
	}
	return nil
}
