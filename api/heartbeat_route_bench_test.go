package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/flywheel"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/telemetry"
	"github.com/gatehouse/gatehouse/models"
	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// quietTemporal is a Temporal client whose signals succeed at once; every
// other call panics (the heartbeat route makes none).
type quietTemporal struct{ client.Client }

func (quietTemporal) SignalWorkflow(context.Context, string, string, string, any) error { return nil }

// BenchmarkHeartbeatRoute_Postgres serves one lease heartbeat per
// iteration through the api's whole router: every middleware, the
// rollout's credentials, and the fenced UPDATE on the heartbeat pool of a
// PostgreSQL schema. Its allocs/op and B/op are what each heartbeat costs
// the collector of an api process (beside net/http's own reading of the
// request, which every Go server pays). Run:
//
//	GATEHOUSE_TEST_DATABASE_URL=postgres://… go test ./api -run '^$' -bench HeartbeatRoute -benchmem
func BenchmarkHeartbeatRoute_Postgres(b *testing.B) {
	url := modelstest.SchemaURL(b)
	if url == "" {
		b.Skip("GATEHOUSE_TEST_DATABASE_URL is not set")
	}
	db, err := models.Open(url)
	if err != nil {
		b.Fatal(err)
	}
	if err := models.Migrate(db, slog.New(slog.DiscardHandler)); err != nil {
		b.Fatal(err)
	}
	hb, err := models.OpenHeartbeatPool(url, models.Pool{MaxOpen: 4, MaxIdle: 4})
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range []*gorm.DB{db, hb} {
		if sqlDB, err := d.DB(); err == nil {
			b.Cleanup(func() { _ = sqlDB.Close() })
		}
	}
	cfg, err := config.FromLookup(func(string) (string, bool) { return "", false })
	if err != nil {
		b.Fatal(err)
	}
	tel, err := telemetry.New(context.Background(), "")
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(Deps{Config: cfg, DB: db, HeartbeatDB: hb, Temporal: quietTemporal{},
		Telemetry: tel, Log: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now()
	if _, _, err := fwmodels.Enqueue(ctx, db, fwmodels.NewRollout{ID: fwmodels.NewRolloutID(), TurnInput: "x",
		DeadlineAt: now.Add(2 * time.Hour), MaxAttempts: 3}); err != nil {
		b.Fatal(err)
	}
	gs, err := fwmodels.Claim(ctx, db, fwmodels.Claimant{CredentialID: "c", AllProjects: true}, 1, time.Hour, now)
	if err != nil || len(gs) != 1 {
		b.Fatalf("claim: %v %d", err, len(gs))
	}
	g := gs[0]
	path := "/flywheel/rollouts/" + g.Rollout.ID + "/heartbeat"
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, path, http.NoBody)
		req.Header.Set("Authorization", "Bearer "+g.APIKey)
		req.Header.Set(flywheel.LeaseTokenHeader, g.LeaseToken)
		w := httptest.NewRecorder()
		srv.Engine.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("heartbeat: %d %s", w.Code, w.Body)
		}
	}
}
