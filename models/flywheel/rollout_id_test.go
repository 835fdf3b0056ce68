package flywheel

import (
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"
)

// TestRolloutID_SortsByMintTimeAndKeepsItsShape proves rollout ids minted
// in successive milliseconds sort in that order (so a claim's rollouts
// share index pages), that ids minted in one millisecond still differ,
// and that the id keeps its shape: ro_ and 24 hex characters, shorter
// than the 32 hex characters log redaction takes for a secret.
func TestRolloutID_SortsByMintTimeAndKeepsItsShape(t *testing.T) {
	shape := regexp.MustCompile(`^ro_[0-9a-f]{24}$`)
	start := time.Date(2026, 12, 5, 23, 0, 0, 0, time.UTC)
	var ids []string
	for i := range 200 {
		id := rolloutIDAt(start.Add(time.Duration(i) * time.Millisecond))
		if !shape.MatchString(id) {
			t.Fatalf("id %q: want ro_ and 24 hex characters", id)
		}
		ids = append(ids, id)
	}
	if !slices.IsSorted(ids) {
		t.Fatalf("ids minted in successive milliseconds do not sort in mint order: %v", ids[:5])
	}
	seen := map[string]bool{}
	for range 1000 {
		id := rolloutIDAt(start)
		if seen[id] {
			t.Fatalf("id %s minted twice in one millisecond", id)
		}
		seen[id] = true
	}
	if id, want := rolloutIDAt(start), fmt.Sprintf("%012x", start.UnixMilli()); id[3:15] != want {
		t.Fatalf("id %s: want its first 12 hex characters to be the millisecond %s", id, want)
	}
	if id := NewRolloutID(); !shape.MatchString(id) {
		t.Fatalf("NewRolloutID %q: want ro_ and 24 hex characters", id)
	}
}
