package research

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

// artifactLevel is the evidence level of an artifact of the current attempt.
func artifactLevel(a ArtifactRef) gateengine.Level {
	if a.Valid {
		return gateengine.Satisfied
	}
	return gateengine.Invalid
}

// reviewFact sets ev from r, the pending kind's review: a pass counts only
// on the snapshot it was requested for (token, the state's SnapshotToken).
func reviewFact(f gateengine.Facts, ev gateengine.Evidence, r ReviewState, token func() string) {
	switch r.Status {
	case ReviewStatusRequested:
		f[ev] = gateengine.Requested
	case ReviewStatusStarted:
		f[ev] = gateengine.Started
	case ReviewStatusPassed:
		if r.SnapshotToken == token() {
			f[ev] = gateengine.Satisfied
		}
	}
}

// fingerprint hashes what a reviewer sees: head, the artifacts keep
// admits, in key order, then tail.
func fingerprint(head string, artifacts map[string]ArtifactRef, keep func(ArtifactRef) bool, tail string) string {
	h := sha256.New()
	h.Write([]byte(head))
	for _, k := range slices.Sorted(maps.Keys(artifacts)) {
		if a := artifacts[k]; keep(a) {
			h.Write([]byte("|" + k + "=" + a.ArtifactID + ":" + a.SHA256))
		}
	}
	h.Write([]byte(tail))
	return hex.EncodeToString(h.Sum(nil))[:32]
}
