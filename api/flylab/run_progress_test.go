package flylab

import (
	"reflect"
	"testing"
)

func TestRunProgress_NeverBackwardsAndEndsWithTheWholeBatch(t *testing.T) {
	t.Parallel()
	batch := map[string]any{"protocol": map[string]any{"replicates": 2.0, "conditions": []any{"a", "b", "c"}}}
	for name, tc := range map[string]struct {
		heartbeats [][2]float64
		want       [][2]float64
	}{
		"a run shorter than one poll still reports": {nil, [][2]float64{{6, 6}}},
		"heartbeats, then the rest":                 {[][2]float64{{2, 6}, {2, 6}, {1, 6}, {4, 6}}, [][2]float64{{2, 6}, {4, 6}, {6, 6}}},
		"the relay already saw the end":             {[][2]float64{{6, 6}}, [][2]float64{{6, 6}}},
	} {
		t.Run(name, func(t *testing.T) {
			var got [][2]float64
			r := newRunProgress(func(done, total float64) { got = append(got, [2]float64{done, total}) })
			for _, h := range tc.heartbeats {
				r.progressFunc()(h[0], h[1])
			}
			r.finish(batch)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("reported %v, want %v", got, tc.want)
			}
		})
	}
	if newRunProgress(nil).progressFunc() != nil {
		t.Fatal("no progress asked for: the relay must stay off")
	}
}
