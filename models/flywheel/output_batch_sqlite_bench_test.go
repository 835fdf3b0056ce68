package flywheel

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkOutputBatch_SQLite is what a batch of outputs costs the dev
// database's one connection: 2,000 leased rollouts, their outputs
// committed 32 a batch as the batcher's committer does (commitSQLite),
// with the statements kept prepared ("prepared", as the batcher runs)
// and parsed on every call ("parsed", as it ran before). It reports
// <variant>-conn-us-per-output, the time the connection was held for
// each output, which every heartbeat waiting for that connection waits
// out too.
//
//	go test ./models/flywheel -run '^$' -bench OutputBatch_SQLite -benchtime 3x
func BenchmarkOutputBatch_SQLite(b *testing.B) {
	const n, per = 2000, 32
	held := map[string]time.Duration{}
	for range b.N {
		for _, variant := range []string{"prepared", "parsed"} {
			b.StopTimer()
			db := benchSQLite(b)
			holders := leaseAll(b, db, n, nil)
			var prepared *preparedSQLite
			if variant == "prepared" {
				prepared = &preparedSQLite{}
			}
			b.StartTimer()
			for at := 0; at < n; at += per {
				batch := make([]*batchedOutput, 0, per)
				for i, h := range holders[at:min(at+per, n)] {
					batch = append(batch, &batchedOutput{h: h, o: Output{FinalText: fmt.Sprint("answer ", at+i)},
						now: dbTime(time.Now()), done: make(chan batchAnswer, 1)})
				}
				start := time.Now()
				commitSQLite(db, prepared, batch)
				held[variant] += time.Since(start)
				for _, x := range batch {
					if a := <-x.done; !a.accepted {
						b.Fatalf("%s: output not accepted: %v", variant, a.err)
					}
				}
			}
		}
	}
	for variant, d := range held {
		b.ReportMetric(float64(d.Microseconds())/float64(b.N*n), variant+"-conn-us-per-output")
	}
}
