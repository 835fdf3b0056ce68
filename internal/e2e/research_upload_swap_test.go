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
// performs the swap: two PUTs of one artifact.submit token at once, the
// first holding its body open until the second (a valid plan) has been
// checked and recorded, then sending other bytes. The second wins; the
// first is refused. Before each attempt had its own blob key, the first
// then wrote over the recorded plan, so the stored bytes were not the ones
// hashed and checked. Now the artifact's blob holds exactly the recorded
// bytes.
func TestResearch_ConcurrentUploadWithOneTokenCannotSwapTheCheckedBytes(t *testing.T) {
	s := StartStack(t, StackOptions{})
	op := connectResearch(t, s, s.OperatorToken)
	projectID := researchProject(t, op, "upload-swap")
	agent := connectResearch(t, s, s.APIKey)
	expID := str(agent.must("experiment.create", map[string]any{"project_id": projectID, "name": "swap"})["experiment_id"])
	sub := agent.must("artifact.submit", map[string]any{"project_id": projectID, "target_type": "experiment",
		"target_id": expID, "role": "plan", "path": "plan.md"})
	plan := []byte("# Plan\n## Hypothesis\nh\n## Method\nm\n## Success criteria\ns\n## Risks\nr\n")
	evil := []byte("# Plan\nTODO: nothing was planned; these bytes were never checked\n")

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
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	// A pipe write returns once the server read it: the first upload is
	// past its token check and streaming into the blob store.
	if _, err := feed.Write(evil[:10]); err != nil {
		t.Fatal(err)
	}
	code, won := uploadAs(t, sub, plan)
	if code != http.StatusOK || won["valid"] != true {
		t.Fatalf("the second upload: %d %v", code, won)
	}
	if _, err := feed.Write(evil[10:]); err != nil {
		t.Fatal(err)
	}
	feed.Close()
	if c := <-first; c == http.StatusOK {
		t.Fatal("both uploads of one token were recorded")
	}

	var a models.Artifact
	if err := researchDB(t, s).Where("target_id = ? AND role = ?", expID, "plan").Take(&a).Error; err != nil {
		t.Fatal(err)
	}
	stored, err := os.ReadFile(filepath.Join(s.DataDir, "blobs", filepath.FromSlash(a.BlobKey)))
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256(stored)
	if hex.EncodeToString(digest[:]) != a.SHA256 || string(stored) != string(plan) || !a.Valid {
		t.Fatalf("the artifact records sha256 %s (valid %v) but its blob holds %q", a.SHA256, a.Valid, stored)
	}
}
