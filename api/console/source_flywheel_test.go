package console

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/gatehouse/gatehouse/api/flywheel"
	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// fakeFlywheelTemporal records cancel signals; ended rollouts answer
// NotFound as a closed workflow does.
type fakeFlywheelTemporal struct {
	signals []string
	ended   map[string]bool
}

func (f *fakeFlywheelTemporal) ExecuteWorkflow(context.Context, client.StartWorkflowOptions, any, ...any) (client.WorkflowRun, error) {
	return nil, errors.New("not used")
}

func (f *fakeFlywheelTemporal) SignalWorkflow(_ context.Context, workflowID, _, name string, _ any) error {
	if f.ended[workflowID] {
		return serviceerror.NewNotFound("workflow execution already completed")
	}
	f.signals = append(f.signals, workflowID+" "+name)
	return nil
}

func TestFlywheelSource_OverviewDetailAndCancelGoThroughTheFlywheel(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	ctx := context.Background()
	for _, id := range []string{"ro_a", "ro_b"} {
		if _, _, err := fwmodels.Enqueue(ctx, db, fwmodels.NewRollout{ID: id, TurnInput: "hi", DeadlineAt: time.Now().Add(time.Hour), MaxAttempts: 3}); err != nil {
			t.Fatal(err)
		}
	}
	tc := &fakeFlywheelTemporal{ended: map[string]bool{"rollout/ro_b": true}}
	h, err := flywheel.New(db, tc, slog.New(slog.NewTextHandler(io.Discard, nil)), flywheel.Options{TaskQueue: "q"})
	if err != nil {
		t.Fatal(err)
	}
	src := newFlywheelSource(db, h)

	counts, page, err := src.RolloutOverview(ctx, RolloutFilter{}, Page{})
	rows := page.Items
	if err != nil {
		t.Fatal(err)
	}
	if counts.Queued != 2 || len(rows) != 2 || rows[0].State != "queued" || rows[0].OnPolicy != nil {
		t.Fatalf("overview: %+v %+v", counts, rows)
	}
	d, err := src.Rollout(ctx, "ro_a")
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "ro_a" || d.WorkflowID != "rollout/ro_a" || d.Finished || len(d.Leases) != 0 {
		t.Fatalf("detail: %+v", d)
	}
	if _, err := src.Rollout(ctx, "ro_zzz"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown rollout: %v, want ErrNotFound", err)
	}
	if err := src.CancelRollout(ctx, Operator{Name: "olga"}, "ro_a", ""); err != nil {
		t.Fatal(err)
	}
	if len(tc.signals) != 1 || !strings.HasPrefix(tc.signals[0], "rollout/ro_a ") {
		t.Fatalf("cancel signals: %v", tc.signals)
	}
	if err := src.CancelRollout(ctx, Operator{}, "ro_b", ""); !errors.Is(err, ErrConflict) {
		t.Fatalf("cancel of an ended rollout: %v, want ErrConflict", err)
	}
	if err := src.CancelRollout(ctx, Operator{}, "ro_zzz", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("cancel of an unknown rollout: %v, want ErrNotFound", err)
	}
	if len(tc.signals) != 1 {
		t.Fatalf("refused cancels signalled: %v", tc.signals)
	}
}

// TestFlywheelSource_DetailCountsTheOpenLeasesHeartbeats: the console shows
// the heartbeats that landed on a lease still held, which only the
// rollout's row counts until the lease ends.
func TestFlywheelSource_DetailCountsTheOpenLeasesHeartbeats(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	ctx := context.Background()
	if _, _, err := fwmodels.Enqueue(ctx, db, fwmodels.NewRollout{ID: "ro_h", TurnInput: "hi", DeadlineAt: time.Now().Add(time.Hour), MaxAttempts: 3}); err != nil {
		t.Fatal(err)
	}
	gs, err := fwmodels.Claim(ctx, db, fwmodels.Claimant{CredentialID: "cred_a", AllProjects: true}, 1, time.Minute, time.Now())
	if err != nil || len(gs) != 1 {
		t.Fatalf("claim: %v %d", err, len(gs))
	}
	holder := fwmodels.Holder{RolloutID: "ro_h", APIKey: gs[0].APIKey, LeaseToken: gs[0].LeaseToken}
	var expiry time.Time
	for range 2 {
		if _, expiry, err = fwmodels.Heartbeat(ctx, db, holder, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	h, err := flywheel.New(db, &fakeFlywheelTemporal{}, slog.New(slog.NewTextHandler(io.Discard, nil)), flywheel.Options{TaskQueue: "q"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := newFlywheelSource(db, h).Rollout(ctx, "ro_h")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Leases) != 1 || d.Leases[0].Heartbeats != 2 || d.Leases[0].Holder != "cred_a" || !d.Leases[0].ExpiresAt.Equal(expiry) {
		t.Fatalf("leases %+v, want one held by cred_a with 2 heartbeats, expiring %s", d.Leases, expiry)
	}
}
