package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/telemetry"
	flylab "github.com/gatehouse/gatehouse/models/flylab"
	flywheel "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
	research "github.com/gatehouse/gatehouse/models/research"
)

func TestMetrics_DomainGaugesReadTheDatabaseAtScrape(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, checkDomainMetrics)
}

func checkDomainMetrics(t *testing.T, db *gorm.DB) {
	cfg, err := config.FromLookup(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	tel, err := telemetry.New(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Deps{Config: cfg, DB: db, Telemetry: tel, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	before := do(t, srv.Engine, http.MethodGet, "/metrics", "", "").Body.String()
	for _, want := range []string{"gatehouse_flylab_pending_approvals 0", "gatehouse_flywheel_lease_expiries_total 0", "gatehouse_domain_metrics_up 1"} {
		if !strings.Contains(before, want) {
			t.Fatalf("an empty database must export %q:\n%s", want, grepLines(before, "gatehouse_"))
		}
	}

	now := time.Now().UTC()
	expired := "expired"
	rows := []any{
		&flylab.Experiment{ID: "exp_a", SessionID: "s", HypothesisID: "h", Status: flylab.StatusAwaitingApproval, ProtocolHash: "p", SeedManifestHash: "m", Design: "{}"},
		&flylab.Experiment{ID: "exp_b", SessionID: "s", HypothesisID: "h", Status: flylab.StatusApproved, ProtocolHash: "p", SeedManifestHash: "m", Design: "{}"},
		&research.ReviewRequest{ID: "rr_1", ProjectID: "p", TargetType: "experiment", TargetID: "e", Kind: "design", Role: "human",
			ProducerSessionID: "main", CapabilityHash: "c1", SnapshotToken: "t", SnapshotJSON: "{}", Status: research.ReviewRequested, ExpiresAt: now.Add(time.Hour)},
		&research.ReviewRequest{ID: "rr_2", ProjectID: "p", TargetType: "experiment", TargetID: "e", Kind: "design", Role: "human",
			ProducerSessionID: "main", CapabilityHash: "c2", SnapshotToken: "t", SnapshotJSON: "{}", Status: "verdict_recorded", ExpiresAt: now.Add(time.Hour)},
		&flywheel.Rollout{ID: "ro_1", Status: flywheel.StatusQueued, TurnInput: "x", DeadlineAt: now.Add(time.Hour), MaxAttempts: 1},
		&flywheel.Rollout{ID: "ro_2", Status: flywheel.StatusQueued, TurnInput: "x", DeadlineAt: now.Add(time.Hour), MaxAttempts: 1},
		&flywheel.Rollout{ID: "ro_3", Status: flywheel.StatusLeased, TurnInput: "x", DeadlineAt: now.Add(time.Hour), MaxAttempts: 1},
		&flywheel.Lease{RolloutID: "ro_3", Epoch: 1, APIKeyHash: "k1", ClaimedBy: "key", GrantedAt: now, ExpiresAt: now, EndedAt: &now, EndReason: &expired},
		&flywheel.Lease{RolloutID: "ro_3", Epoch: 2, APIKeyHash: "k2", ClaimedBy: "key", GrantedAt: now, ExpiresAt: now.Add(time.Minute)},
		&flywheel.GatewayCall{ID: "call_1", RolloutID: "ro_3", Epoch: 2, Endpoint: "chat.completions", Completion: true, RequestSHA256: "r", Status: 200, StartedAt: now},
	}
	for _, r := range rows {
		if err := db.Create(r).Error; err != nil {
			t.Fatalf("insert %T: %v", r, err)
		}
	}
	after := do(t, srv.Engine, http.MethodGet, "/metrics", "", "").Body.String()
	for _, want := range []string{
		"gatehouse_flylab_pending_approvals 1",
		`gatehouse_research_reviews_waiting{role="human"} 1`,
		`gatehouse_flywheel_rollouts{state="queued"} 2`,
		`gatehouse_flywheel_rollouts{state="leased"} 1`,
		"# TYPE gatehouse_flywheel_lease_expiries_total counter",
		"gatehouse_flywheel_lease_expiries_total 1",
		`gatehouse_llm_gateway_calls_total{completion="true",endpoint="chat.completions"} 1`,
		"gatehouse_domain_metrics_up 1",
	} {
		if !strings.Contains(after, want) {
			t.Errorf("metrics lack %q:\n%s", want, grepLines(after, "gatehouse_"))
		}
	}
}

func grepLines(s, prefix string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, prefix) && !strings.HasPrefix(l, "# HELP") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
