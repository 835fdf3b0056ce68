package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/converter"
	"gorm.io/gorm"

	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// scriptedQuerier fails the first len(errs) queries with errs, then
// answers state; with no state it keeps failing with the last error.
type scriptedQuerier struct {
	errs  []error
	state *wf.SessionState
	calls atomic.Int32
}

func (q *scriptedQuerier) QueryWorkflow(_ context.Context, workflowID, _, queryType string, _ ...any) (converter.EncodedValue, error) {
	n := int(q.calls.Add(1)) - 1
	if !strings.HasPrefix(workflowID, wf.SessionIDPrefix) || queryType != wf.StateQuery {
		return nil, errors.New("unexpected query " + workflowID + " " + queryType)
	}
	if n < len(q.errs) {
		return nil, q.errs[n]
	}
	if q.state == nil {
		return nil, q.errs[len(q.errs)-1]
	}
	raw, err := json.Marshal(*q.state)
	return jsonValue(raw), err
}

type jsonValue []byte

func (j jsonValue) HasValue() bool    { return len(j) > 0 }
func (j jsonValue) Get(ptr any) error { return json.Unmarshal(j, ptr) }

func storedSession(t *testing.T, db *gorm.DB, snapshot *wf.SessionState) {
	t.Helper()
	ctx := context.Background()
	if err := models.CreateOnce(ctx, db, &models.Session{ID: "session_a", OwnerCredentialID: "cred_a", OwnerName: "agent-a"}); err != nil {
		t.Fatal(err)
	}
	if snapshot != nil {
		raw, _ := json.Marshal(snapshot)
		if err := models.SaveSnapshot(ctx, db, "session_a", snapshot.Revision, raw); err != nil {
			t.Fatal(err)
		}
	}
}

var purged = serviceerror.NewNotFound("workflow execution not found")

// TestReadSession_GoneWorkflowAnswersFromTheDatabase proves a session
// whose workflow was purged reads as its stored snapshot, and one that
// never committed as its first state, never as an error.
func TestReadSession_GoneWorkflowAnswersFromTheDatabase(t *testing.T) {
	saved := &wf.SessionState{SessionID: "session_a", Owner: "cred_a", Revision: 12,
		Bundle: &wf.BundleRef{ID: "bundle_1", ManifestHash: "sha256:x"}}
	for _, tc := range []struct {
		name     string
		snapshot *wf.SessionState
		q        StateQuerier
		want     wf.SessionState
	}{
		{"purged after commits", saved, &scriptedQuerier{errs: []error{purged}}, *saved},
		{"never committed", nil, &scriptedQuerier{errs: []error{purged}}, wf.SessionState{SessionID: "session_a", Owner: "cred_a", Revision: 1}},
		{"no Temporal client", saved, nil, *saved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
				storedSession(t, db, tc.snapshot)
				got, err := ReadSession(context.Background(), db, tc.q, "session_a")
				if err != nil || got.Revision != tc.want.Revision || got.Owner != tc.want.Owner || (tc.want.Bundle == nil) != (got.Bundle == nil) {
					t.Fatalf("got %+v (%v), want %+v", got, err, tc.want)
				}
			})
		})
	}
}

// TestReadSession_SnapshotAnswersUnlessTheRowRoutesToTheWorkflow proves a
// session with a stored snapshot reads in one database round trip without
// asking Temporal, and that the workflow (the authority) answers while a
// long call's mark or a stale-snapshot mark is in force, not after it
// lapsed; an unknown session is NOT_FOUND, not empty.
func TestReadSession_SnapshotAnswersUnlessTheRowRoutesToTheWorkflow(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name      string
		mark      func(ctx context.Context, db *gorm.DB) error
		wantLive  bool
		wantCalls int32
	}{
		{"no mark", func(context.Context, *gorm.DB) error { return nil }, false, 0},
		{"long call in progress", func(ctx context.Context, db *gorm.DB) error {
			return models.MarkLongCall(ctx, db, "session_a", "call/1", now, now.Add(time.Minute))
		}, true, 1},
		{"long call mark lapsed", func(ctx context.Context, db *gorm.DB) error {
			return models.MarkLongCall(ctx, db, "session_a", "call/1", now.Add(-time.Hour), now.Add(-time.Minute))
		}, false, 0},
		{"stale snapshot", func(ctx context.Context, db *gorm.DB) error {
			return models.MarkSnapshotStale(ctx, db, "session_a", now.Add(time.Hour))
		}, true, 1},
		{"long call cleared", func(ctx context.Context, db *gorm.DB) error {
			if err := models.MarkLongCall(ctx, db, "session_a", "call/1", now, now.Add(time.Minute)); err != nil {
				return err
			}
			return models.ClearReadMark(ctx, db, "session_a", "call/1", false)
		}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
				storedSession(t, db, &wf.SessionState{SessionID: "session_a", Revision: 3})
				if err := tc.mark(context.Background(), db); err != nil {
					t.Fatal(err)
				}
				live := &wf.SessionState{SessionID: "session_a", Revision: 4, Running: wf.ToolRun}
				q := &scriptedQuerier{state: live}
				got, err := ReadSession(context.Background(), db, q, "session_a")
				wantRev, wantRunning := 3, ""
				if tc.wantLive {
					wantRev, wantRunning = 4, wf.ToolRun
				}
				if err != nil || got.Revision != wantRev || got.Running != wantRunning || q.calls.Load() != tc.wantCalls {
					t.Fatalf("got revision %d running %q after %d queries (%v), want %d %q after %d",
						got.Revision, got.Running, q.calls.Load(), err, wantRev, wantRunning, tc.wantCalls)
				}
			})
		})
	}
	db := modelstest.SQLite(t)
	if _, err := ReadSession(context.Background(), db, &scriptedQuerier{errs: []error{purged}}, "session_zz"); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}

// TestReadSession_MarksBelongToTheirCall proves a second long call cannot
// take over a mark in force, clearing lifts only the caller's own mark,
// and a stored commit lifts a stale-snapshot mark while a failed one
// leaves it.
func TestReadSession_MarksBelongToTheirCall(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx, now := context.Background(), time.Now()
		storedSession(t, db, &wf.SessionState{SessionID: "session_a", Revision: 3})
		token := func() string {
			row, err := models.SessionByID(ctx, db, "session_a")
			if err != nil {
				t.Fatal(err)
			}
			return row.WorkflowReadsToken
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(models.MarkLongCall(ctx, db, "session_a", "call/first", now, now.Add(time.Minute)))
		must(models.MarkLongCall(ctx, db, "session_a", "call/second", now, now.Add(time.Minute)))
		must(models.ClearReadMark(ctx, db, "session_a", "call/second", true))
		if got := token(); got != "call/first" {
			t.Fatalf("mark is %q, want the first call's", got)
		}
		must(models.MarkSnapshotStale(ctx, db, "session_a", now.Add(time.Hour)))
		must(models.ClearReadMark(ctx, db, "session_a", "call/first", false))
		if got := token(); got != models.StaleSnapshotToken {
			t.Fatalf("a commit that was not stored lifted the stale mark: %q", got)
		}
		must(models.ClearReadMark(ctx, db, "session_a", "call/other", true))
		if got := token(); got != "" {
			t.Fatalf("a stored commit left the stale mark: %q", got)
		}
	})
}

// TestReadSession_TransientQueryFailuresAreRetried proves a query that
// fails while a worker is lost is asked again after a short backoff, and a
// real failure is answered at once.
func TestReadSession_TransientQueryFailuresAreRetried(t *testing.T) {
	db := modelstest.SQLite(t)
	storedSession(t, db, nil)
	live := &wf.SessionState{SessionID: "session_a", Revision: 5}
	q := &scriptedQuerier{state: live, errs: []error{
		serviceerror.NewDeadlineExceeded("query timed out before a worker could process it"),
		serviceerror.NewUnavailable("frontend restarting"),
		serviceerror.NewWorkflowNotReady("Workflow task is not scheduled yet."),
	}}
	start := time.Now()
	got, err := ReadSession(context.Background(), db, q, "session_a")
	if err != nil || got.Revision != 5 || q.calls.Load() != 4 {
		t.Fatalf("got %+v (%v) after %d queries, want revision 5 after 4", got, err, q.calls.Load())
	}
	if d := time.Since(start); d < queryBackoffFirst || d > 5*time.Second {
		t.Fatalf("retries took %s", d)
	}

	failed := &scriptedQuerier{errs: []error{serviceerror.NewQueryFailed("query handler panicked")}}
	if _, err := ReadSession(context.Background(), db, failed, "session_a"); err == nil || failed.calls.Load() != 1 {
		t.Fatalf("a failed query handler was retried (%d queries) or hidden: %v", failed.calls.Load(), err)
	}
}

// TestReadSession_RetriesStopAtTheCallersDeadline proves the retries never
// outlast the caller.
func TestReadSession_RetriesStopAtTheCallersDeadline(t *testing.T) {
	db := modelstest.SQLite(t)
	storedSession(t, db, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	down := &scriptedQuerier{errs: []error{serviceerror.NewUnavailable("down")}}
	start := time.Now()
	if _, err := ReadSession(ctx, db, down, "session_a"); err == nil {
		t.Fatal("an unavailable Temporal answered")
	}
	if d := time.Since(start); d > 2*time.Second || down.calls.Load() < 2 {
		t.Fatalf("took %s over %d queries", d, down.calls.Load())
	}
}

// TestReadSession_DecisionRecordedWhileTheSessionWasGoneIsApplied proves
// an approval the experiment workflow recorded but could not signal to a
// gone session workflow still opens the gate in the stored state.
func TestReadSession_DecisionRecordedWhileTheSessionWasGoneIsApplied(t *testing.T) {
	db := modelstest.SQLite(t)
	const hash = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	storedSession(t, db, &wf.SessionState{SessionID: "session_a", Revision: 4,
		Experiment: &wf.ExperimentRef{ID: "exp_1", ProtocolHash: hash, Status: wf.ExperimentAwaiting}})
	ctx := context.Background()
	if err := models.CreateOnce(ctx, db, &models.Experiment{ID: "exp_1", SessionID: "session_a", HypothesisID: "hyp_1",
		Status: models.StatusAwaitingApproval, ProtocolHash: hash, SeedManifestHash: hash, Design: "{}"}); err != nil {
		t.Fatal(err)
	}
	if got, err := StoredSession(ctx, db, "session_a"); err != nil || got.Revision != 4 || got.Experiment.Status != wf.ExperimentAwaiting {
		t.Fatalf("undecided: %+v %v", got, err)
	}
	if err := models.RecordDecision(ctx, db, "exp_1", models.StatusApproved, `{"approved_at":"2026-12-01T08:00:00Z"}`, "operator", ""); err != nil {
		t.Fatal(err)
	}
	got, err := StoredSession(ctx, db, "session_a")
	if err != nil || got.Revision != 5 || got.Experiment.Status != wf.ExperimentApproved || got.Experiment.ApprovedAt != "2026-12-01T08:00:00Z" {
		t.Fatalf("after the approval: %+v %v, want approved at revision 5", got.Experiment, err)
	}
	// A live workflow that has not mirrored the decision yet is asked: it
	// is the authority on whether the gate opened.
	notYet := &wf.SessionState{SessionID: "session_a", Revision: 4,
		Experiment: &wf.ExperimentRef{ID: "exp_1", ProtocolHash: hash, Status: wf.ExperimentAwaiting}}
	q := &scriptedQuerier{state: notYet}
	if got, err := ReadSession(ctx, db, q, "session_a"); err != nil || got.Revision != 4 || q.calls.Load() != 1 {
		t.Fatalf("pending decision read %+v after %d queries (%v), want the live revision 4", got, q.calls.Load(), err)
	}
	if got, err := ReadSession(ctx, db, &scriptedQuerier{errs: []error{purged}}, "session_a"); err != nil || got.Revision != 5 {
		t.Fatalf("gone workflow with a pending decision: %+v %v", got, err)
	}
}

// TestReadSession_ApprovalThatLapsedWhileTheSessionWasGoneIsApplied: an
// approval the experiment workflow revoked at the end of its 30 days,
// while the session workflow was gone, closes the gate in the stored
// state too.
func TestReadSession_ApprovalThatLapsedWhileTheSessionWasGoneIsApplied(t *testing.T) {
	db := modelstest.SQLite(t)
	const hash = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	storedSession(t, db, &wf.SessionState{SessionID: "session_a", Revision: 5,
		Experiment: &wf.ExperimentRef{ID: "exp_1", ProtocolHash: hash, Status: wf.ExperimentApproved}})
	ctx := context.Background()
	if err := models.CreateOnce(ctx, db, &models.Experiment{ID: "exp_1", SessionID: "session_a", HypothesisID: "hyp_1",
		Status: models.StatusApproved, ProtocolHash: hash, SeedManifestHash: hash, Design: "{}", Approval: "{}"}); err != nil {
		t.Fatal(err)
	}
	if err := models.RecordDecision(ctx, db, "exp_1", models.StatusRevoked, "", "timer", "approval expired before the experiment ran"); err != nil {
		t.Fatal(err)
	}
	got, err := StoredSession(ctx, db, "session_a")
	if err != nil || got.Revision != 6 || got.Experiment.Status != wf.ExperimentRevoked || humanGate(got)["status"] != "required" {
		t.Fatalf("after the lapse: %+v %v, want revoked at revision 6", got.Experiment, err)
	}
}
