package research

import (
	"context"
	"encoding/json"
	"path"
	"strings"

	models "github.com/gatehouse/gatehouse/models/research"
)

// exhibitMaxBytes bounds how much of one result file the exhibit reads;
// exhibitMaxObjects how many pinned result objects it reads, of at most
// exhibitScanObjects pinned objects it looks at.
const (
	exhibitMaxBytes    = 1 << 20
	exhibitMaxObjects  = 100
	exhibitScanObjects = 5000
)

// exhibitAnswer is experiment.exhibit's answer: the metrics of the
// experiment's result files. Fields are in the order of their JSON keys,
// as the map it replaced encoded them.
type exhibitAnswer struct {
	ExperimentID string        `json:"experiment_id"`
	Files        []exhibitFile `json:"files"`
	ReadOnly     bool          `json:"read_only"`
}

// exhibitFile is one result file of exhibitAnswer, its numbers flattened:
// an uploaded artifact (artifact_id, attempt_index) or a pinned storage
// object the experiment produced (object_id, version).
type exhibitFile struct {
	ArtifactID string             `json:"artifact_id,omitempty"`
	Attempt    int                `json:"attempt_index"`
	Metrics    map[string]float64 `json:"metrics"`
	ObjectID   string             `json:"object_id,omitempty"`
	Path       string             `json:"path"`
	SHA256     string             `json:"sha256"`
	Version    int                `json:"version,omitempty"`
}

// isResultFile reports whether p names a file the exhibit is built from:
// metrics.json, results.json or results/*.json.
func isResultFile(p string) bool {
	base, dir := path.Base(p), path.Base(path.Dir(p))
	return base == "metrics.json" || base == "results.json" || (dir == "results" && strings.HasSuffix(base, ".json"))
}

// experimentExhibit builds the exhibit from the experiment's uploaded
// result artifacts and the result files it produced into object storage
// and pinned (which is why the tool needs storage; see alsoNeedsStorage).
func experimentExhibit(ctx context.Context, s *Service, c *Call) (any, error) {
	_, _, e, err := s.calledExperiment(ctx, c)
	if err != nil {
		return nil, err
	}
	as, err := models.UploadedArtifacts(ctx, s.DB, e.ID)
	if err != nil {
		return nil, err
	}
	files := []exhibitFile{}
	add := func(f exhibitFile, blobKey string) error {
		if !isResultFile(f.Path) {
			return nil
		}
		text, err := s.readBlob(ctx, blobKey, exhibitMaxBytes)
		f.Metrics = metricsOf(text)
		files = append(files, f)
		return err
	}
	for _, a := range as {
		if err := add(exhibitFile{ArtifactID: a.ID, Path: a.Path, SHA256: a.SHA256, Attempt: a.Attempt}, a.BlobKey); err != nil {
			return nil, err
		}
	}
	objs, err := models.PinnedObjectsOf(ctx, s.DB, e.ProjectID, e.ID, exhibitScanObjects)
	if err != nil {
		return nil, err
	}
	for _, o := range resultObjects(objs, exhibitMaxObjects) {
		if err := add(exhibitFile{ObjectID: o.ID, Version: o.Version, Path: o.Path, SHA256: o.SHA256}, o.BlobKey); err != nil {
			return nil, err
		}
	}
	return exhibitAnswer{ExperimentID: e.ID, ReadOnly: true, Files: files}, nil
}

// resultObjects is the first max of objs that are result files.
func resultObjects(objs []models.StorageObject, max int) []models.StorageObject {
	var out []models.StorageObject
	for _, o := range objs {
		if len(out) == max {
			break
		}
		if isResultFile(o.Path) {
			out = append(out, o)
		}
	}
	return out
}

// metricsOf flattens a JSON document's numeric leaves (none when text is
// not a JSON object).
func metricsOf(text string) map[string]float64 {
	var doc map[string]any
	metrics := map[string]float64{}
	if json.Unmarshal([]byte(text), &doc) == nil {
		flatten("", doc, metrics)
	}
	return metrics
}

// flatten collects numeric leaves under dotted keys.
func flatten(prefix string, v any, out map[string]float64) {
	switch x := v.(type) {
	case float64:
		out[prefix] = x
	case map[string]any:
		for k, vv := range x {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(key, vv, out)
		}
	}
}
