package research

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
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
// A request or session of a snapshot the target has left is no review at
// all: review.start and review.submit refuse it, so the producer must
// request anew (launch_<role>_reviewer), as the api's review_gate says
// with attested_blocked. A request without a token (recorded before
// tokens) is taken as current, as review_gate takes it.
func reviewFact(f gateengine.Facts, ev gateengine.Evidence, r ReviewState, token func() string) {
	switch r.Status {
	case ReviewStatusRequested, ReviewStatusStarted:
		if r.SnapshotToken != "" && r.SnapshotToken != token() {
			return
		}
		f[ev] = gateengine.Requested
		if r.Status == ReviewStatusStarted {
			f[ev] = gateengine.Started
		}
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

// lastVerdictFailed reports whether the last thing that happened to a
// target is a fail verdict of its review at status from: the verdict is
// the newest entry of history (no transition followed it) and still the
// revision context's (a failed central advance replaces that).
func lastVerdictFailed(rc *RevisionContext, history []TransitionRecord, from gates.Status) bool {
	n := len(history)
	return rc != nil && rc.Verdict == gateengine.VerdictFail && rc.From == from &&
		n > 0 && history[n-1].Transition == "review_"+gateengine.VerdictFail && history[n-1].From == from
}

// unrevised reports whether no artifact landed since the target's last
// move, the move into the review that failed it: every artifact of the
// current attempt is one that move sealed. Work resumes, and a failure's
// next action gives way to the gate's own, once the producer submits a
// new artifact of the current attempt (any, after a verdict that started
// a new attempt).
func unrevised(history []TransitionRecord, artifacts map[string]ArtifactRef, attempt int) bool {
	var sealed []string
	for i := len(history) - 1; i >= 0; i-- {
		if !isVerdictRecord(history[i]) {
			sealed = history[i].Sealed
			break
		}
	}
	for _, a := range artifacts {
		if a.Attempt == attempt && !slices.Contains(sealed, a.ArtifactID) {
			return false
		}
	}
	return true
}

// isVerdictRecord reports whether a history entry is a review verdict
// (core.reviewVerdict's review_<verdict>; no transition is named so)
// rather than a move.
func isVerdictRecord(r TransitionRecord) bool { return strings.HasPrefix(r.Transition, "review_") }
