package research

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/models/modelstest"
	models "github.com/gatehouse/gatehouse/models/research"
)

// countingStore counts the blobs read.
type countingStore struct {
	blobstore.Store
	opens atomic.Int64
}

func (c *countingStore) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	c.opens.Add(1)
	return c.Store.Open(ctx, key)
}

// TestDocRef_ATLDRIsReadFromItsBlobOnce: reflection.get's TLDRs come from
// a cache after the first read; include_content still reads the bytes.
func TestDocRef_ATLDRIsReadFromItsBlobOnce(t *testing.T) {
	fs, err := blobstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	blobs := &countingStore{Store: fs}
	s := newTestService(t)
	s.DB, s.Blobs = modelstest.SQLite(t), blobs
	ctx := context.Background()
	doc := "# Reflection\n## TLDR\nthe wave held\n## Findings\nf\n## Implications\ni\n"
	info, err := fs.Put(ctx, "k", strings.NewReader(doc), 0)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := s.DB.Create(&models.Artifact{ID: "art_d", ProjectID: "p", TargetType: "reflection", TargetID: "r", Role: "reflection_doc",
		Path: "reflection.md", UploadTokenHash: "t", BlobKey: "k", SHA256: info.SHA256, Size: info.Size, UploadedAt: &now}).Error; err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		v, err := s.docRef(ctx, "art_d", false)
		if err != nil || v == nil || v.TLDR != "the wave held" {
			t.Fatalf("docRef %d: %v %v", i, v, err)
		}
	}
	if n := blobs.opens.Load(); n != 1 {
		t.Fatalf("%d blob reads for three TLDRs, want 1", n)
	}
	if v, err := s.docRef(ctx, "art_d", true); err != nil || v == nil || v.Content == nil || *v.Content != doc || blobs.opens.Load() != 2 {
		t.Fatalf("include_content: %v %v (%d reads)", v, err, blobs.opens.Load())
	}
}
