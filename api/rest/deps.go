package rest

import (
	"log/slog"

	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/telemetry"
)

// Deps are what every domain's handlers may use.
type Deps struct {
	Config config.Config
	DB     *gorm.DB
	// HeartbeatDB is the pool flywheel lease heartbeats commit through
	// (models.OpenHeartbeatPool: no wait for the WAL flush); nil: DB.
	HeartbeatDB *gorm.DB
	Temporal    client.Client
	Blobs       blobstore.Store
	Telemetry   *telemetry.Telemetry
	Log         *slog.Logger
}
