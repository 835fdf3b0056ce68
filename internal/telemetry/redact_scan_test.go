package telemetry

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMayHoldSecret_NeverMissesWhatThePatternMatches draws strings built
// from credential prefixes, separators and secret-like runs, and requires
// the scan to be true for every one the pattern matches in; it also checks
// plain log values are skipped.
func TestMayHoldSecret_NeverMissesWhatThePatternMatches(t *testing.T) {
	t.Parallel()
	parts := []string{"mk", "op", "cap", "ap", "c", "lt", "gw", "rk", "_", "-", " ", "/", "x", "0123456789", "abcdefgh", "é", "Bearer "}
	r := rand.New(rand.NewPCG(1, 2))
	matched := 0
	for range 200_000 {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		if secretPattern.MatchString(s) {
			matched++
			if !mayHoldSecret(s) {
				t.Fatalf("%q holds a secret the scan missed", s)
			}
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d drawn strings held a secret; the draw does not test the scan", matched)
	}
	for _, plain := range []string{"POST", "/flywheel/rollouts/ro_0123456789abcdef/output", "/mcp/flylab", "req_4f2a", "snake_case_name", ""} {
		if mayHoldSecret(plain) {
			t.Errorf("%q has no credential prefix, yet the scan sends it to the pattern", plain)
		}
	}
}

// BenchmarkRedact is the cost per logged string of the access log's
// values: a path, a method, a request id.
func BenchmarkRedact(b *testing.B) {
	values := []string{"/flywheel/rollouts/ro_0123456789abcdef/output", "POST", "8c1f0e2a9b7d4c3e", "/flywheel/rollouts/:id/output"}
	b.ReportAllocs()
	for b.Loop() {
		for _, v := range values {
			_ = Redact(v)
		}
	}
}
