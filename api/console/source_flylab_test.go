package console

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/flylab"
	"github.com/gatehouse/gatehouse/api/rest"
	science "github.com/gatehouse/gatehouse/flylab"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	flywf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// fakeFlyTemporal plays the experiment workflow: a signal naming the right
// hash records the decision the way the workflow's activity would.
type fakeFlyTemporal struct {
	mu      sync.Mutex
	db      *gorm.DB
	signals []string
	fail    error
}

func (f *fakeFlyTemporal) SignalWorkflow(ctx context.Context, workflowID, _, name string, arg any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	f.signals = append(f.signals, workflowID+" "+name)
	id := strings.TrimPrefix(workflowID, flywf.ExperimentIDPrefix)
	switch a := arg.(type) {
	case flywf.Approve:
		return flymodels.RecordDecision(ctx, f.db, id, flymodels.StatusApproved, `{"ok":true}`, a.Operator, "")
	case flywf.Reject:
		return flymodels.RecordDecision(ctx, f.db, id, flymodels.StatusRejected, "", a.Operator, a.Reason)
	}
	return errors.New("unexpected signal payload")
}

func (f *fakeFlyTemporal) QueryWorkflow(context.Context, string, string, string, ...any) (converter.EncodedValue, error) {
	return nil, errors.New("no session workflow in this test")
}

// storeDesign stores a real design of the science core as the design
// activity would, and returns it.
func storeDesign(t *testing.T, db *gorm.DB) science.Design {
	t.Helper()
	d, err := science.DesignProtocol(science.DesignRequest{HypothesisID: "hyp_1", TargetCircuitID: "circuit_mdn_backward",
		Perturbation: "activate", Laterality: "bilateral", ActivationLevel: 0.8, OnsetMs: 500, DurationMs: 1000,
		TrialDurationMs: 3000, Replicates: 2, IncludeBaseline: true, IncludeShamControl: true, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(d)
	ctx := context.Background()
	if err := db.Create(&flymodels.Hypothesis{ID: "hyp_1", SessionID: "session_1", CircuitID: "circuit_mdn_backward",
		Body: `{"claim":"Activating MDN drives backward walking"}`, CreatedAt: time.Now()}).Error; err != nil {
		t.Fatal(err)
	}
	if err := flymodels.CreateOnce(ctx, db, &flymodels.Experiment{ID: "exp_1", SessionID: "session_1", HypothesisID: "hyp_1",
		Status: flymodels.StatusAwaitingApproval, ProtocolHash: d.ProtocolHash, SeedManifestHash: d.SeedManifestHash,
		Design: string(raw), CreatedAt: time.Now(), UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestFlyLabSource_PendingShowsTheStoredDesign(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	d := storeDesign(t, db)
	src := newFlyLabSource(db, &fakeFlyTemporal{db: db}, nil)
	got, err := src.PendingApprovals(context.Background())
	if err != nil || len(got) != 1 {
		t.Fatalf("pending = %v, %v", got, err)
	}
	a := got[0]
	if a.ProtocolHash != d.ProtocolHash || a.Hypothesis != "Activating MDN drives backward walking" ||
		a.WorkflowID != "flylab-experiment/exp_1" || a.Timing.OnsetMS != 500 || a.Replicates != 2 {
		t.Fatalf("pending approval %+v", a)
	}
	if len(a.Conditions) != len(d.Experiment.Conditions) || len(a.Seeds) == 0 || len(a.ModelAssumptions) == 0 {
		t.Fatalf("conditions %d (want %d), seeds %v, assumptions %v", len(a.Conditions), len(d.Experiment.Conditions), a.Seeds, a.ModelAssumptions)
	}
	drives := 0
	for _, c := range a.Conditions {
		drives += len(c.Drives)
	}
	if drives == 0 || !strings.Contains(a.ProtocolJSON, `"driveDerivations"`) {
		t.Fatalf("no effective drives shown (drives %d)", drives)
	}
}

func TestFlyLabSource_ApproveSignalsTheGateAndRefusesAStaleHash(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	d := storeDesign(t, db)
	tc := &fakeFlyTemporal{db: db}
	src := flySource(t, db, tc)
	ctx := context.Background()
	stale := "sha256:" + strings.Repeat("0", 64)
	if err := src.Approve(ctx, Operator{Name: "olga"}, "exp_1", stale); !errors.Is(err, ErrConflict) {
		t.Fatalf("stale hash: %v, want ErrConflict", err)
	}
	if err := src.Approve(ctx, Operator{Name: "olga"}, "exp_9", d.ProtocolHash); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown experiment: %v, want ErrNotFound", err)
	}
	if len(tc.signals) != 0 {
		t.Fatalf("refused approvals signalled: %v", tc.signals)
	}
	if err := src.Approve(ctx, Operator{Name: "olga"}, "exp_1", d.ProtocolHash); err != nil {
		t.Fatal(err)
	}
	row, _ := flymodels.ExperimentByID(ctx, db, "exp_1")
	if row.Status != flymodels.StatusApproved || row.DecidedBy != "olga" || tc.signals[0] != "flylab-experiment/exp_1 approve" {
		t.Fatalf("after approve: status %s by %q, signals %v", row.Status, row.DecidedBy, tc.signals)
	}
	if err := src.Reject(ctx, Operator{Name: "olga"}, "exp_1", d.ProtocolHash, "late"); !errors.Is(err, ErrConflict) {
		t.Fatalf("reject after approve: %v, want ErrConflict", err)
	}
}

func TestFlyLabSource_RejectAndUnreachableWorkflow(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	d := storeDesign(t, db)
	tc := &fakeFlyTemporal{db: db, fail: serviceerror.NewNotFound("workflow not found")}
	src := flySource(t, db, tc)
	ctx := context.Background()
	if err := src.Reject(ctx, Operator{Name: "olga"}, "exp_1", d.ProtocolHash, "too few seeds"); !errors.Is(err, ErrConflict) {
		t.Fatalf("a workflow no longer running: %v, want ErrConflict", err)
	}
	// Temporal not answering is not a conflict: the operator may retry.
	tc.fail = serviceerror.NewUnavailable("temporal is down")
	if err := src.Reject(ctx, Operator{Name: "olga"}, "exp_1", d.ProtocolHash, "too few seeds"); err == nil || errors.Is(err, ErrConflict) {
		t.Fatalf("Temporal down: %v, want a retryable error, not ErrConflict", err)
	}
	tc.fail = nil
	if err := src.Reject(ctx, Operator{Name: "olga"}, "exp_1", d.ProtocolHash, "too few seeds"); err != nil {
		t.Fatal(err)
	}
	row, _ := flymodels.ExperimentByID(ctx, db, "exp_1")
	if row.Status != flymodels.StatusRejected || row.Reason != "too few seeds" {
		t.Fatalf("after reject: %s %q", row.Status, row.Reason)
	}
}

// flyClient presents the fake as a Temporal client to FlyLab's real
// decision service; only the two calls it makes are implemented.
type flyClient struct {
	client.Client
	fake *fakeFlyTemporal
}

func (c flyClient) SignalWorkflow(ctx context.Context, id, run, name string, arg any) error {
	return c.fake.SignalWorkflow(ctx, id, run, name, arg)
}

func (c flyClient) QueryWorkflow(ctx context.Context, id, run, query string, args ...any) (converter.EncodedValue, error) {
	return c.fake.QueryWorkflow(ctx, id, run, query, args...)
}

// flySource builds the adapter over FlyLab's real decision service.
func flySource(t *testing.T, db *gorm.DB, tc *fakeFlyTemporal) *flylabSource {
	t.Helper()
	svc, err := flylab.NewService(rest.Deps{DB: db, Temporal: flyClient{fake: tc}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return newFlyLabSource(db, tc, svc)
}
