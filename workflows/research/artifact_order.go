package research

import "go.temporal.io/sdk/workflow"

// newestUploadChange versions the rule that an older upload never
// replaces a newer one at an artifact's key. Runs recorded before it let
// the last notice applied win, so their histories replay.
const newestUploadChange = "artifact-newest-upload-wins"

// uploadedBefore reports whether a was uploaded before cur, the artifact
// already at its key, in the same attempt, so a must not replace it.
//
// Two uploads of one role race when the notice of the first is held up
// (its verification ran on a worker that died and is retried once its
// timeout passes) while the producer, told nothing landed, uploads again:
// the first notice then arrives last. Applied, it would swap the artifact
// under a review already requested for the second upload's snapshot.
// The version is read only when that happens, so other runs record no
// marker.
func uploadedBefore(ctx workflow.Context, a, cur ArtifactRef) bool {
	if cur.Attempt != a.Attempt || a.UploadedAt.IsZero() || !a.UploadedAt.Before(cur.UploadedAt) {
		return false
	}
	return workflow.GetVersion(ctx, newestUploadChange, workflow.DefaultVersion, 1) >= 1
}
