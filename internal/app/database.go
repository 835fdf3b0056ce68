package app

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/telemetry"
	"github.com/gatehouse/gatehouse/models"
)

// openDatabase opens url with the configured pool bounds and exports the
// pool's statistics (go_sql_open_connections, go_sql_wait_count_total,
// go_sql_wait_duration_seconds_total, … with db_name="gatehouse") on reg.
func openDatabase(url string, pool config.DatabasePool, reg prometheus.Registerer) (*gorm.DB, error) {
	db, err := models.OpenPool(url, models.Pool{MaxOpen: pool.MaxConns, MaxIdle: pool.MaxIdleConns, MaxLifetime: pool.ConnMaxLifetime})
	if err != nil {
		return nil, err
	}
	return observed(db, "gatehouse", reg)
}

// observed traces db's statements and exports its pool's statistics on reg
// as db_name=name; the pool is closed if that fails.
func observed(db *gorm.DB, name string, reg prometheus.Registerer) (*gorm.DB, error) {
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	if err := db.Use(telemetry.GORMTracing()); err != nil {
		_ = sqlDB.Close() // the plugin's error is the one to report
		return nil, err
	}
	if err := reg.Register(collectors.NewDBStatsCollector(sqlDB, name)); err != nil {
		_ = sqlDB.Close() // the registration's error is the one to report
		return nil, fmt.Errorf("database pool metrics (%s): %w", name, err)
	}
	return db, nil
}

// openHeartbeatPool gives an api on PostgreSQL its heartbeat pool
// (models/lease_pool.go): a quarter of GATEHOUSE_DATABASE_MAX_CONNS, at
// least 2, taken from the main pool, so the process still holds at most
// MAX_CONNS connections.
func (s *services) openHeartbeatPool() error {
	p := s.cfg.DatabasePool
	n := max(2, p.MaxConns/4)
	if p.MaxConns-n < 2 {
		return nil // too small a budget to split: heartbeats share the main pool
	}
	db, err := models.OpenHeartbeatPool(s.cfg.DatabaseURL, models.Pool{MaxOpen: n, MaxIdle: min(n, p.MaxIdleConns), MaxLifetime: p.ConnMaxLifetime})
	if err != nil || db == nil {
		return err
	}
	if db, err = observed(db, "gatehouse_heartbeats", s.tel.Registry); err != nil {
		return err
	}
	main, err := s.db.DB()
	if err != nil {
		return err
	}
	main.SetMaxOpenConns(p.MaxConns - n)
	main.SetMaxIdleConns(min(p.MaxIdleConns, p.MaxConns-n))
	s.heartbeatDB = db
	return nil
}
