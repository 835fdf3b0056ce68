package flylab

import (
	"context"
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/rest"
	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// TestReadRoute_MutationsKeepTheRouteTruthful proves a long call routes
// its session's reads to the workflow while it runs and lifts that when
// it answers; a short call writes nothing; a commit the workflow did not
// store marks the snapshot stale until a stored commit lifts it; and a
// stale mark that cannot be written fails the call.
func TestReadRoute_MutationsKeepTheRouteTruthful(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		svc := &Service{deps: rest.Deps{DB: db}}
		if err := models.CreateOnce(ctx, db, &models.Session{ID: "session_a", OwnerCredentialID: "cred_a", OwnerName: "a"}); err != nil {
			t.Fatal(err)
		}
		row := func() models.Session {
			r, err := models.SessionByID(ctx, db, "session_a")
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		route := svc.routeReads(ctx, row(), wf.ToolRun)
		if r := row(); r.WorkflowReadsToken != route.token || r.WorkflowReadsUntil == nil {
			t.Fatalf("a running simulation left reads on the snapshot: %+v", r)
		}
		if err := route.settle(wf.ToolOutcome{Stored: true}, nil); err != nil || row().WorkflowReadsToken != "" {
			t.Fatalf("the answered simulation kept its mark: %v %+v", err, row())
		}

		lostRun := svc.routeReads(ctx, row(), wf.ToolRun)
		if err := lostRun.settle(wf.ToolOutcome{}, context.Canceled); err != nil {
			t.Fatal(err)
		}
		if r := row(); r.WorkflowReadsToken != lostRun.token || r.WorkflowReadsUntil == nil || time.Until(*r.WorkflowReadsUntil) > 2*time.Minute {
			t.Fatalf("a simulation whose answer was lost (it may still run) is not marked for a short while: %+v", r)
		}
		if err := models.ClearReadMark(ctx, db, "session_a", lostRun.token, false); err != nil {
			t.Fatal(err)
		}

		short := svc.routeReads(ctx, row(), wf.ToolFind)
		if r := row(); r.WorkflowReadsToken != "" {
			t.Fatalf("a short call marked the session: %+v", r)
		}
		if err := short.settle(wf.ToolOutcome{Stored: false}, nil); err != nil || row().WorkflowReadsToken != models.StaleSnapshotToken {
			t.Fatalf("a commit that was not stored left reads on the snapshot: %v %+v", err, row())
		}
		failed := svc.routeReads(ctx, row(), wf.ToolFind)
		if err := failed.settle(wf.ToolOutcome{Failure: &wf.ToolFailure{Code: wf.CodeStaleState}}, nil); err != nil || row().WorkflowReadsToken != models.StaleSnapshotToken {
			t.Fatalf("a refused call lifted the stale mark: %v %+v", err, row())
		}
		lost := svc.routeReads(ctx, row(), wf.ToolFind)
		if err := lost.settle(wf.ToolOutcome{}, errors.New("update lost")); err != nil || row().WorkflowReadsToken != models.StaleSnapshotToken {
			t.Fatalf("a lost call lifted the stale mark: %v %+v", err, row())
		}
		stored := svc.routeReads(ctx, row(), wf.ToolFind)
		if err := stored.settle(wf.ToolOutcome{Stored: true}, nil); err != nil || row().WorkflowReadsToken != "" {
			t.Fatalf("a stored commit left the stale mark: %v %+v", err, row())
		}

		unmarkable := svc.routeReads(ctx, row(), wf.ToolFind)
		conn, err := db.DB()
		if err != nil {
			t.Fatal(err)
		}
		if db.Dialector.Name() != "sqlite" {
			return // closing a shared PostgreSQL pool would break the other tests
		}
		_ = conn.Close()
		if err := unmarkable.settle(wf.ToolOutcome{Stored: false}, nil); err == nil {
			t.Fatal("a commit that was neither stored nor marked stale was answered")
		}
	})
}
