package flylab

import "testing"

// BenchmarkSimulateBatch: 3 conditions × 5 replicates × 10 s at 1 ms steps,
// including trajectory sampling and both batch hashes. Target < 150 ms.
// It also reports runs/s: simulated runs (replicates) per second of wall
// time; Simulate runs them one after another on one goroutine, so with
// -cpu 1 this is the throughput of one core.
func BenchmarkSimulateBatch(b *testing.B) {
	d := designFor(b, "circuit_dn_steering", PerturbationActivate, LateralityLeft, 1, func(r *DesignRequest) {
		r.TrialDurationMs, r.OnsetMs, r.DurationMs = 10000, 2000, 3000
	})
	const perBatch = 15
	if n := len(d.Experiment.Conditions) * d.Experiment.Replicates; n != perBatch {
		b.Fatalf("want %d runs, got %d", perBatch, n)
	}
	b.ReportAllocs()
	runs := 0
	for b.Loop() {
		batch, err := Simulate(d.Experiment.Protocol, d.SeedManifest, nil)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, cr := range batch.ConditionRuns {
			n += len(cr.Replicates)
		}
		if n != perBatch {
			b.Fatalf("a batch simulated %d runs, want %d", n, perBatch)
		}
		runs += n
	}
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(runs)/s, "runs/s")
	}
}

// BenchmarkSearch: one catalog query with a whole mission prompt. Target < 1 ms.
func BenchmarkSearch(b *testing.B) {
	q := SearchQuery{Query: "Find the adult Drosophila neurons that make a fly walk backward when it meets a barrier, " +
		"and test whether activating them increases backward distance compared with sham."}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SearchCircuits(q); err != nil {
			b.Fatal(err)
		}
	}
}
