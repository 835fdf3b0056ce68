package flylab

import "testing"

// BenchmarkSimulateBatch: 3 conditions × 5 replicates × 10 s at 1 ms steps,
// including trajectory sampling and both batch hashes. Target < 150 ms.
func BenchmarkSimulateBatch(b *testing.B) {
	d := designFor(b, "circuit_dn_steering", PerturbationActivate, LateralityLeft, 1, func(r *DesignRequest) {
		r.TrialDurationMs, r.OnsetMs, r.DurationMs = 10000, 2000, 3000
	})
	if n := len(d.Experiment.Conditions) * d.Experiment.Replicates; n != 15 {
		b.Fatalf("want 15 runs, got %d", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Simulate(d.Experiment.Protocol, d.SeedManifest, nil); err != nil {
			b.Fatal(err)
		}
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
