package research

import models "github.com/gatehouse/gatehouse/models/research"

// Blob keys of a storage object's bytes. An upload attempt writes its own
// key; a completion copies those bytes to a key of its own, checks that
// copy, and binds the object to it. No token or presigned URL ever names
// a key an available object reads, so bytes cannot be swapped after the
// check.

// uploadAttemptKey is a fresh key for one upload attempt of o.
func uploadAttemptKey(o models.StorageObject) string {
	return "research/" + o.ProjectID + "/storage/" + o.ID + ".upload-" + models.RandomHex(12)
}

// boundKey is a fresh key for the bytes one completion of o checks.
func boundKey(o models.StorageObject) string {
	return "research/" + o.ProjectID + "/storage/" + o.ID + ".bytes-" + models.RandomHex(12)
}
