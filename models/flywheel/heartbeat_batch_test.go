package flywheel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"
)

// runnerlessBatcher is the function db's HeartbeatBatcher runner extends
// one batch with, on a batcher whose runners never start: a test takes
// and extends its batches itself.
func runnerlessBatcher(t *testing.T, db *gorm.DB) func([]*waitingBeat) {
	t.Helper()
	b, extend, _ := newHeartbeatBatcher(db)
	if b == nil {
		t.Fatalf("no batcher on %s", db.Dialector.Name())
	}
	return extend
}

// batcherStores are the stores a HeartbeatBatcher serves, each opened
// fresh for one test: PostgreSQL (skipped without one, outside CI) and
// SQLite.
var batcherStores = map[string]func(testing.TB) *gorm.DB{"postgres": freshPostgresSchema, "sqlite": benchSQLite}

func waitingBeatOf(h Holder, at time.Time) *waitingBeat {
	return &waitingBeat{h: h, now: dbTime(at), done: make(chan beatAnswer, 1)}
}

// leaseHeartbeats is how many heartbeats rollout id's row has counted.
func leaseHeartbeats(t *testing.T, db *gorm.DB, id string) int64 {
	t.Helper()
	var n int64
	if err := db.Raw("SELECT lease_heartbeats FROM flywheel_rollouts WHERE id = ?", id).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// TestHeartbeatBatch_ExtendsEachLeaseAndRefusesEachForItsOwnReason: one
// batch holding live heartbeats (each at its own time), a forged lease
// token, another rollout's key, an unknown key, a rollout whose output
// was accepted, a lapsed lease and one past its deadline extends exactly
// the live ones, each to its own time plus its lease, counted once; the
// others get the error they would get alone and change nothing.
func TestHeartbeatBatch_ExtendsEachLeaseAndRefusesEachForItsOwnReason(t *testing.T) {
	t.Parallel()
	for name, open := range batcherStores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			extendsEachLeaseAndRefusesEachForItsOwnReason(t, open(t))
		})
	}
}

func extendsEachLeaseAndRefusesEachForItsOwnReason(t *testing.T, db *gorm.DB) {
	hs := leaseAll(t, db, 9, nil) // leased for an hour, deadline in two
	granted := time.Now()
	if _, _, err := AcceptOutput(context.Background(), db, hs[5], Output{BodySHA256: "x"}, granted); err != nil {
		t.Fatal(err)
	}
	forged, foreign, unknown := hs[2], hs[3], hs[6]
	forged.LeaseToken = "forged"
	foreign.APIKey = hs[4].APIKey
	unknown.APIKey = "nobody's"
	beats := []*waitingBeat{
		waitingBeatOf(hs[0], granted.Add(time.Second)), waitingBeatOf(hs[1], granted.Add(2*time.Second)),
		waitingBeatOf(forged, granted.Add(time.Second)), waitingBeatOf(foreign, granted.Add(time.Second)),
		waitingBeatOf(hs[4], granted.Add(3*time.Second)), waitingBeatOf(hs[5], granted.Add(time.Second)),
		waitingBeatOf(unknown, granted.Add(time.Second)), waitingBeatOf(hs[7], granted.Add(90*time.Minute)),
		waitingBeatOf(hs[8], granted.Add(3*time.Hour)),
	}
	runnerlessBatcher(t, db)(beats)
	want := []error{nil, nil, ErrStaleLease, ErrForeignKey, nil, ErrOutputAccepted, ErrUnknownKey, ErrStaleLease, ErrGone}
	for i, x := range beats {
		a := <-x.done
		if !errors.Is(a.err, want[i]) || (a.err == nil) != (want[i] == nil) {
			t.Errorf("heartbeat %d: err %v, want %v", i, a.err, want[i])
		}
		counted := leaseHeartbeats(t, db, x.h.RolloutID)
		if want[i] != nil {
			if counted != 0 {
				t.Errorf("refused heartbeat %d counted %d", i, counted)
			}
			continue
		}
		if counted != 1 {
			t.Errorf("heartbeat %d counted %d times, want once", i, counted)
		}
		if wantExpiry := x.now.Add(time.Hour); a.e.Epoch != 1 || !a.e.ExpiresAt.Equal(wantExpiry) || a.e.GrantedAt.IsZero() {
			t.Errorf("heartbeat %d: %+v, want epoch 1 expiring %v with its grant", i, a.e, wantExpiry)
		}
	}
}

// TestHeartbeatBatch_TakesEveryWaitingHeartbeatOncePerRollout: a batch
// takes every heartbeat already waiting, in arrival order, but only one a
// rollout; a second heartbeat of a rollout waits for the next batch.
func TestHeartbeatBatch_TakesEveryWaitingHeartbeatOncePerRollout(t *testing.T) {
	t.Parallel()
	b := &HeartbeatBatcher{queue: make(chan *waitingBeat, 8)}
	for _, id := range []string{"a", "b", "a", "c"} {
		b.queue <- waitingBeatOf(Holder{RolloutID: id}, time.Now())
	}
	ids := func(xs []*waitingBeat) (s []string) {
		for _, x := range xs {
			s = append(s, x.h.RolloutID)
		}
		return s
	}
	batch, rest := nextBatch(b.queue, nil, heartbeatBatchMax)
	if fmt.Sprint(ids(batch)) != "[a b c]" || fmt.Sprint(ids(rest)) != "[a]" {
		t.Fatalf("first batch %v, left %v", ids(batch), ids(rest))
	}
	b.queue <- waitingBeatOf(Holder{RolloutID: "d"}, time.Now())
	if batch, rest = nextBatch(b.queue, rest, heartbeatBatchMax); fmt.Sprint(ids(batch)) != "[a d]" || len(rest) != 0 {
		t.Fatalf("second batch %v, left %v", ids(batch), ids(rest))
	}
}

// TestHeartbeatBatcher_ConcurrentHeartbeatsEachLandOnce: many agents
// heartbeating at once, several on the same rollout, through the running
// batcher: every heartbeat is answered with its own extension and each
// row counts exactly the heartbeats it was sent.
func TestHeartbeatBatcher_ConcurrentHeartbeatsEachLandOnce(t *testing.T) {
	t.Parallel()
	for name, open := range batcherStores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			concurrentHeartbeatsEachLandOnce(t, open(t))
		})
	}
}

func concurrentHeartbeatsEachLandOnce(t *testing.T, db *gorm.DB) {
	hs := leaseAll(t, db, 20, nil)
	b := NewHeartbeatBatcher(db)
	if b == nil {
		t.Fatalf("no batcher on %s", db.Dialector.Name())
	}
	const each = 5
	var wg sync.WaitGroup
	errs := make(chan error, len(hs)*each)
	start := time.Now()
	for i := range len(hs) * each {
		h := hs[i%len(hs)]
		at := start.Add(time.Duration(i) * time.Millisecond)
		wg.Go(func() {
			e, err := b.Extend(context.Background(), h, at)
			switch {
			case err != nil:
				errs <- fmt.Errorf("%s: %w", h.RolloutID, err)
			case !e.ExpiresAt.Equal(dbTime(at).Add(time.Hour)):
				errs <- fmt.Errorf("%s: extended to %v, want %v", h.RolloutID, e.ExpiresAt, dbTime(at).Add(time.Hour))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, h := range hs {
		if n := leaseHeartbeats(t, db, h.RolloutID); n != each {
			t.Errorf("%s counted %d heartbeats, want %d", h.RolloutID, n, each)
		}
	}
}

// TestNewHeartbeatBatcher_OnlyOnAPlainPool: a pool the batcher cannot
// hold a connection of (GORM's prepared-statement pool) gets no batcher;
// its heartbeats go through ExtendLease.
func TestNewHeartbeatBatcher_OnlyOnAPlainPool(t *testing.T) {
	t.Parallel()
	db := benchSQLite(t)
	if b := NewHeartbeatBatcher(db.Session(&gorm.Session{PrepareStmt: true})); b != nil {
		t.Fatal("a batcher on a prepared-statement pool")
	}
	if b := NewHeartbeatBatcher(db); b == nil {
		t.Fatal("no batcher on SQLite")
	}
}
