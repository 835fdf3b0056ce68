package research

import models "github.com/gatehouse/gatehouse/models/research"

// artifactAttemptKey is a fresh blob key for one upload attempt of an
// artifact: the row's blob key becomes it only when that attempt records
// the upload, so the bytes a reader gets are the bytes that were hashed
// and checked.
func artifactAttemptKey(a models.Artifact) string {
	return a.BlobKey + ".upload-" + models.RandomHex(12)
}
