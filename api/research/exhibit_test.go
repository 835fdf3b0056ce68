package research

import (
	"fmt"
	"testing"

	models "github.com/gatehouse/gatehouse/models/research"
)

// TestResultObjects_OnlyResultFilesUpToTheCap: other pinned objects
// (datasets, weights) neither show in the exhibit nor crowd result files
// out of it, and no more than the cap are read.
func TestResultObjects_OnlyResultFilesUpToTheCap(t *testing.T) {
	var objs []models.StorageObject
	for i := range 150 {
		objs = append(objs, models.StorageObject{ID: fmt.Sprintf("data_%d", i), Path: fmt.Sprintf("data/%d.bin", i)},
			models.StorageObject{ID: fmt.Sprintf("res_%d", i), Path: fmt.Sprintf("out/results/%d.json", i)})
	}
	objs = append(objs, models.StorageObject{ID: "nested", Path: "results/deep/x.json"}, models.StorageObject{ID: "m", Path: "a/metrics.json"})
	got := resultObjects(objs, exhibitMaxObjects)
	if len(got) != exhibitMaxObjects || got[0].ID != "res_0" || got[len(got)-1].ID != fmt.Sprintf("res_%d", exhibitMaxObjects-1) {
		t.Fatalf("%d objects, first %v", len(got), got[0])
	}
	if tail := resultObjects(objs[300:], 10); len(tail) != 1 || tail[0].ID != "m" {
		t.Errorf("of results/deep/x.json and a/metrics.json, kept %v; want only a/metrics.json", tail)
	}
}
