package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
)

// TestResearch_ConcurrentUploadWithOneTokenCannotSwapTheCheckedBytes
// performs the swap on an experiment's and a reflection's artifact: two
// PUTs of one artifact.submit token at once, the first holding its body
// open until the second has been checked and recorded, then sending other
// bytes. The second wins; the first is refused. Before each attempt had
// its own blob key, the first then wrote over the recorded bytes, so the
// stored bytes were not the ones hashed and checked. Now the artifact's
// blob holds exactly the recorded bytes.
func TestResearch_ConcurrentUploadWithOneTokenCannotSwapTheCheckedBytes(t *testing.T) {
	s := StartStack(t, StackOptions{})
	op := connectResearch(t, s, s.OperatorToken)
	agent := connectResearch(t, s, s.APIKey)
	t.Run("experiment", func(t *testing.T) {
		projectID := researchProject(t, op, "upload-swap")
		expID := str(agent.must("experiment.create", map[string]any{"project_id": projectID, "name": "swap"})["experiment_id"])
		sub := agent.must("artifact.submit", map[string]any{"project_id": projectID, "target_type": "experiment",
			"target_id": expID, "role": "plan", "path": "plan.md"})
		plan := []byte("# Plan\n## Hypothesis\nh\n## Method\nm\n## Success criteria\ns\n## Risks\nr\n")
		a := swapUpload(t, s, sub, plan)
		if !a.Valid {
			t.Fatalf("the winning plan was recorded invalid: %s", a.Problems)
		}
	})
	t.Run("reflection", func(t *testing.T) {
		projectID := researchProject(t, op, "upload-swap-reflection")
		lens := func(id string) map[string]any {
			return map[string]any{"id": id, "title": id, "charter": "Look at " + id, "why_distinct": "only " + id}
		}
		rid := str(agent.must("reflection.create", map[string]any{"project_id": projectID, "lenses": []any{lens("aa"), lens("bb")}})["reflection_id"])
		sub := agent.must("artifact.submit", map[string]any{"project_id": projectID, "target_type": "reflection",
			"target_id": rid, "role": "reflection_lens_doc", "lens_id": "aa", "path": "reflection/lenses/aa.md"})
		swapUpload(t, s, sub, []byte("# Lens aa\nWhat the lens found.\n"))
	})
}

// swapUpload runs the swap against the upload sub answered, with winner
// as the second (recorded) body, and checks the artifact's blob holds
// winner and its recorded digest. It returns the artifact's row.
func swapUpload(t *testing.T, s *Stack, sub map[string]any, winner []byte) models.Artifact {
	t.Helper()
	evil := []byte("# Swapped\nTODO: these bytes were never hashed or checked\n")
	up := sub["upload"].(map[string]any)
	body, feed := io.Pipe()
	req, err := http.NewRequest(str(up["method"]), str(up["url"]), body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range up["headers"].(map[string]any) {
		req.Header.Set(k, str(v))
	}
	first := make(chan int, 1)
	go func() {
		resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
		if err != nil {
			first <- 0
			return
		}
		_ = resp.Body.Close()
		first <- resp.StatusCode
	}()
	// A pipe write returns once the server read it: the first upload is
	// past its token check and streaming into the blob store.
	if _, err := feed.Write(evil[:10]); err != nil {
		t.Fatal(err)
	}
	if code, won := uploadAs(t, sub, winner); code != http.StatusOK {
		t.Fatalf("the second upload: %d %v", code, won)
	}
	if _, err := feed.Write(evil[10:]); err != nil {
		t.Fatal(err)
	}
	_ = feed.Close()
	if c := <-first; c == http.StatusOK {
		t.Fatal("both uploads of one token were recorded")
	}
	var a models.Artifact
	if err := researchDB(t, s).Where("id = ?", str(sub["artifact_id"])).Take(&a).Error; err != nil {
		t.Fatal(err)
	}
	stored, err := os.ReadFile(filepath.Join(s.DataDir, "blobs", filepath.FromSlash(a.BlobKey)))
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256(stored)
	if hex.EncodeToString(digest[:]) != a.SHA256 || string(stored) != string(winner) {
		t.Fatalf("the artifact records sha256 %s (valid %v) but its blob holds %q", a.SHA256, a.Valid, stored)
	}
	return a
}
