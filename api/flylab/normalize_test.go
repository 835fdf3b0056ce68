package flylab

import (
	"reflect"
	"sync"
	"testing"
)

// TestNormalize_GoValuesBecomePlainJSON proves normalize turns the Go
// values a handler adds (ints, string slices, structs, nested in plain
// maps and arrays) into the values JSON decoding gives, so pointers and
// provenance resolve on them, and leaves plain values as they are.
func TestNormalize_GoValuesBecomePlainJSON(t *testing.T) {
	type gate struct {
		Status string `json:"status"`
	}
	got := normalize(map[string]any{
		"n": 3, "ids": []string{"a"}, "gate": gate{Status: "open"}, "kept": "x",
		"nested": map[string]any{"deep": []any{map[string]any{"k": int64(2)}, 1.5}},
	})
	want := map[string]any{
		"n": 3.0, "ids": []any{"a"}, "gate": map[string]any{"status": "open"}, "kept": "x",
		"nested": map[string]any{"deep": []any{map[string]any{"k": 2.0}, 1.5}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("normalize = %#v, want %#v", got, want)
	}
}

// TestNormalize_NeverWritesAPlainSharedDocument normalizes many envelopes
// that embed one shared, already plain document at once (the provenance
// policy every agent context carries); under -race a write to it fails.
func TestNormalize_NeverWritesAPlainSharedDocument(t *testing.T) {
	shared := map[string]any{"labels": []any{"measured", "inferred"}, "rules": map[string]any{"a": true}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				normalize(map[string]any{"policy": shared, "revision": 4})
			}
		}()
	}
	wg.Wait()
	if !reflect.DeepEqual(shared, map[string]any{"labels": []any{"measured", "inferred"}, "rules": map[string]any{"a": true}}) {
		t.Fatalf("the shared document changed: %v", shared)
	}
}
