package flywheel

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/internal/telemetry"
	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
)

// A claim that leased nothing (an idle agent's poll, every few seconds
// from each) stays out of the info access log; a claim that leased a
// rollout is logged there, as before.
func TestClaim_LogsAtInfoOnlyWhenItLeasedSomething(t *testing.T) {
	e := newTestEnv(t, Options{})
	var logs bytes.Buffer
	tel, err := telemetry.New(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	engine := gin.New()
	engine.Use(rest.Observe(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})), tel.HTTP))
	e.h.Mount(rest.NewRouter(engine, rest.NewDocument("t", "t")), rest.Deps{DB: e.db})
	e.engine = engine

	claim := func() result {
		return e.do(http.MethodPost, "/flywheel/claim", e.agentKey, []byte(`{"max_rollouts": 4}`))
	}
	if r := claim(); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"rollouts":[]`) {
		t.Fatalf("claim of an empty queue: %d %s", r.Status, r.Body)
	}
	if logs.Len() != 0 {
		t.Fatalf("an empty claim was logged at info:\n%s", logs.String())
	}
	if _, _, err := fwmodels.Enqueue(context.Background(), e.db, fwmodels.NewRollout{ID: fwmodels.NewRolloutID(), TurnInput: "x",
		DeadlineAt: time.Now().Add(time.Hour), MaxAttempts: 3}); err != nil {
		t.Fatal(err)
	}
	if r := claim(); r.Status != http.StatusOK || strings.Contains(string(r.Body), `"rollouts":[]`) {
		t.Fatalf("claim of one queued rollout: %d %s", r.Status, r.Body)
	}
	if n := strings.Count(logs.String(), `"route":"/flywheel/claim"`); n != 1 {
		t.Fatalf("info access log has %d claim lines, want the one that leased:\n%s", n, logs.String())
	}
}
