package app

import (
	"runtime/debug"
	"testing"
)

// TestTuneDevCollector_SetsTheDevTargetUnlessGOGCNamesOne: with GOGC
// unset the dev process collects at DevGCPercent; a GOGC the user set
// (here 150, as the runtime read it at start) is left in force.
func TestTuneDevCollector_SetsTheDevTargetUnlessGOGCNamesOne(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	if got := TuneDevCollector(); got != DevGCPercent || debug.SetGCPercent(100) != DevGCPercent {
		t.Fatalf("without GOGC the target is %d, want %d", got, DevGCPercent)
	}
	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150) // what the runtime reads from GOGC at start
	if got := TuneDevCollector(); got != 150 || debug.SetGCPercent(150) != 150 {
		t.Fatalf("with GOGC=150 the target is %d, want 150", got)
	}
}
