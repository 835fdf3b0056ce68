package flywheel

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"
)

// TestBatches_LockTheirRowsInOneOrderWhateverTheArrival: two batches
// holding rollouts a and b in opposite orders, (a, m, b) and (b, n, a),
// must not deadlock. A third transaction holds m and n, so if each batch
// locked its rows in arrival order, one would hold a and the other b
// when it lets go, each would then wait for the other's, and PostgreSQL
// would abort one with 40P01: an output batch answered one by one, a
// heartbeat batch failed. Outputs against outputs, heartbeats against
// outputs, and heartbeats against heartbeats (two runners, or two api
// replicas).
func TestBatches_LockTheirRowsInOneOrderWhateverTheArrival(t *testing.T) {
	t.Parallel()
	db := freshPostgresSchema(t)
	pool, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	outputs := func(hs ...Holder) func(context.Context) error {
		return func(ctx context.Context) error {
			batch := make([]*batchedOutput, len(hs))
			for i, h := range hs {
				batch[i] = &batchedOutput{h: h, o: Output{BodySHA256: "same", FinalText: "done"}, now: dbTime(time.Now())}
			}
			_, err := acceptOutputsStatement(db.WithContext(ctx), batch)
			return err
		}
	}
	heartbeats := func(hs ...Holder) func(context.Context) error {
		return func(ctx context.Context) error {
			batch := make([]*waitingBeat, len(hs))
			for i, h := range hs {
				batch[i] = &waitingBeat{h: h, now: dbTime(time.Now())}
			}
			_, err := extendAllOnConn(ctx, pool, batch)
			return err
		}
	}
	hs := leaseAll(t, db, 12, nil)
	queueMany(t, db, 2000)
	for i, c := range []struct {
		name          string
		first, second func(...Holder) func(context.Context) error
	}{
		{"outputs against outputs", outputs, outputs},
		{"heartbeats against outputs", heartbeats, outputs},
		{"heartbeats against heartbeats", heartbeats, heartbeats},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b, m, n := hs[4*i], hs[4*i+1], hs[4*i+2], hs[4*i+3]
			errs := releasedAtOnce(t, db, []string{m.RolloutID, n.RolloutID},
				c.first(a, m, b), c.second(b, n, a))
			for i, err := range errs {
				if err != nil {
					t.Errorf("batch %d: %v", i+1, err)
				}
			}
		})
	}
}

// releasedAtOnce runs each batch while one transaction holds the rows of
// ids, waits until every batch waits on it (or behind another batch),
// then lets go of the rows, and answers each batch's error.
func releasedAtOnce(t *testing.T, db *gorm.DB, ids []string, batches ...func(context.Context) error) []error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	holder := db.WithContext(ctx).Begin()
	if holder.Error != nil {
		t.Fatal(holder.Error)
	}
	defer holder.Rollback()
	var holderPID int64
	if err := holder.Raw("SELECT pg_backend_pid()").Scan(&holderPID).Error; err != nil {
		t.Fatal(err)
	}
	if err := holder.Exec("SELECT 1 FROM flywheel_rollouts WHERE id IN ? FOR UPDATE", ids).Error; err != nil {
		t.Fatal(err)
	}
	done := make([]chan error, len(batches))
	for i, run := range batches {
		done[i] = make(chan error, 1)
		go func() { done[i] <- run(ctx) }()
	}
	waitBlockedBy(t, db, holderPID, len(batches))
	if err := holder.Commit().Error; err != nil {
		t.Fatal(err)
	}
	errs := make([]error, len(batches))
	for i := range done {
		errs[i] = <-done[i]
	}
	return errs
}

// queueMany stores n queued rollouts and analyzes the table, so the
// planner finds each batch's rows through the primary key, one input row
// after the other, as on a real queue (on a few rows it scans the table).
func queueMany(t *testing.T, db *gorm.DB, n int) {
	t.Helper()
	rs := make([]Rollout, n)
	for i := range rs {
		rs[i] = Rollout{ID: NewRolloutID(), Status: StatusQueued, TurnInput: "filler", DeadlineAt: dbTime(time.Now().Add(time.Hour)), MaxAttempts: 1}
	}
	if err := db.CreateInBatches(rs, 500).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Exec("ANALYZE flywheel_rollouts").Error; err != nil {
		t.Fatal(err)
	}
}

// waitBlockedBy waits until n sessions wait, directly or behind one
// another, on a lock the session pid holds.
func waitBlockedBy(t *testing.T, db *gorm.DB, pid int64, n int) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 20*time.Second; time.Sleep(5 * time.Millisecond) {
		var blocked int
		err := db.Raw(`WITH RECURSIVE behind(pid) AS (
				SELECT ?::int UNION SELECT a.pid FROM pg_stat_activity a JOIN behind b ON b.pid = ANY(pg_blocking_pids(a.pid)))
			SELECT count(*) - 1 FROM behind`, pid).Scan(&blocked).Error
		if err != nil {
			t.Fatal(err)
		}
		if blocked == n {
			return
		}
	}
	t.Fatalf("%d batches never both waited on the rows", n)
}
