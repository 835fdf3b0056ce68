package rest

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/internal/telemetry"
)

// observedEngine is a Gin engine behind Observe, logging JSON at info
// into the returned buffer, with the telemetry that counts its requests.
func observedEngine(t *testing.T) (*gin.Engine, *bytes.Buffer, *telemetry.Telemetry) {
	t.Helper()
	gin.SetMode(gin.ReleaseMode)
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	tel, err := telemetry.New(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	e := gin.New()
	e.Use(Observe(log, tel.HTTP))
	return e, &logs, tel
}
