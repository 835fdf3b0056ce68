package flywheel

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkOutputBatch_SQLite is what a batch of outputs costs the dev
// database's one connection: 2,000 leased rollouts, their outputs
// committed 32 a batch as the batcher's committer does (commitSQLite).
// It reports conn-us-per-output, the time the connection was held for
// each output, which every heartbeat waiting for that connection waits
// out too.
//
//	go test ./models/flywheel -run '^$' -bench OutputBatch_SQLite -benchtime 3x
func BenchmarkOutputBatch_SQLite(b *testing.B) {
	const n, per = 2000, 32
	var held time.Duration
	for range b.N {
		b.StopTimer()
		db := benchSQLite(b)
		holders := leaseAll(b, db, n, nil)
		b.StartTimer()
		for at := 0; at < n; at += per {
			batch := make([]*batchedOutput, 0, per)
			for i, h := range holders[at:min(at+per, n)] {
				batch = append(batch, &batchedOutput{h: h, o: Output{FinalText: fmt.Sprint("answer ", at+i)},
					now: dbTime(time.Now()), done: make(chan batchAnswer, 1)})
			}
			start := time.Now()
			commitSQLite(db, batch)
			held += time.Since(start)
			for _, x := range batch {
				if a := <-x.done; !a.accepted {
					b.Fatalf("output not accepted: %v", a.err)
				}
			}
		}
	}
	b.ReportMetric(float64(held.Microseconds())/float64(b.N*n), "conn-us-per-output")
}
