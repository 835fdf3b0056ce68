package flywheel

import (
	"context"
	"testing"
	"time"
)

// BenchmarkHoldNotices_Postgres: an api replica holding 1,000 of the
// notices in its queue, none of them due yet (so nothing moves, as for a
// burst's outputs before the hold learnt to wait for their due time):
// the keys as three arrays (HoldNotices) against an IN list of rows
// (holdNoticesListed), which PostgreSQL plans anew for each list.
//
//	GATEHOUSE_TEST_DATABASE_URL=… go test ./models/flywheel -run '^$' -bench HoldNotices_Postgres
func BenchmarkHoldNotices_Postgres(b *testing.B) {
	db := freshPostgresSchema(b)
	leaseAll(b, db, 2000, nil) // each lease's grant notice waits in the outbox
	var ns []Notice
	if err := db.Limit(1000).Find(&ns).Error; err != nil {
		b.Fatal(err)
	}
	keys := make([]NoticeKey, len(ns))
	for i, n := range ns {
		keys[i] = n.Key()
	}
	if err := db.Exec("ANALYZE flywheel_notices").Error; err != nil {
		b.Fatal(err)
	}
	until := time.Now() // before every notice's due time: nothing moves
	for _, v := range []struct {
		name string
		hold func() (int64, error)
	}{
		{"arrays", func() (int64, error) { return HoldNotices(context.Background(), db, keys, until) }},
		{"rows", func() (int64, error) { return holdNoticesListed(db, keys, until) }},
	} {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				if held, err := v.hold(); err != nil || held != 0 {
					b.Fatalf("held %d (%v), want 0", held, err)
				}
			}
		})
	}
}
