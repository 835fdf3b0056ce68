package flywheel

import (
	"context"
	"testing"
	"time"
)

// BenchmarkDueNotices_SQLite is what the reconciler's pass over a claim
// burst's grant notices costs the dev database's one connection: 2,000
// rollouts leased for 15 s at once and heartbeated at 5 and 10 s, their
// grant notices falling due 11.25 s after the grant, when each is only
// deferred again (the lease's heartbeats moved its expiry). The pass takes
// them 256 a batch, as the reconciler does. It reports
// conn-us-per-notice, the time the connection was held for each notice,
// which every heartbeat waiting for that connection waits out too.
//
//	go test ./models/flywheel -run '^$' -bench DueNotices_SQLite -benchtime 3x
func BenchmarkDueNotices_SQLite(b *testing.B) {
	const n, per = 2000, 256
	ctx := context.Background()
	var held time.Duration
	for range b.N {
		b.StopTimer()
		db := benchSQLite(b)
		now := time.Now()
		holders := leaseAllFor(b, db, n, nil, 15*time.Second, now)
		for _, at := range []time.Duration{5 * time.Second, 10 * time.Second} {
			for _, h := range holders {
				if _, err := ExtendLease(ctx, db, h, now.Add(at)); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StartTimer()
		deferred := 0
		for {
			start := time.Now()
			send, full, err := DueNotices(ctx, db, now.Add(11500*time.Millisecond), 10*time.Second, per)
			held += time.Since(start)
			if err != nil || len(send) != 0 {
				b.Fatalf("due notices: %d to send, %v; want every grant deferred", len(send), err)
			}
			deferred += per
			if !full {
				break
			}
		}
		if deferred < n {
			b.Fatalf("deferred %d notices of %d", deferred, n)
		}
	}
	b.ReportMetric(float64(held.Microseconds())/float64(b.N*n), "conn-us-per-notice")
}
