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
	if err := db.Use(telemetry.GORMTracing()); err != nil {
		return nil, err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	if err := reg.Register(collectors.NewDBStatsCollector(sqlDB, "gatehouse")); err != nil {
		_ = sqlDB.Close()
		return nil, fmt.Errorf("database pool metrics: %w", err)
	}
	return db, nil
}
