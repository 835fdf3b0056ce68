package research

import wf "github.com/gatehouse/gatehouse/workflows/research"

// reviewGateStatus is the review_gate status of the contract's list
// (none, requested, started, attested_blocked) for the review of a gate
// still waiting for one, whose target's snapshot is now current. A review
// that cannot attest the current snapshot is attested_blocked: a pending
// request for a snapshot the target has left (review.start would refuse
// it), or a pass that no longer counts because the target changed since.
func reviewGateStatus(r wf.ReviewState, current string) string {
	switch r.Status {
	case wf.ReviewStatusRequested, wf.ReviewStatusStarted:
		if r.SnapshotToken != "" && r.SnapshotToken != current {
			return "attested_blocked"
		}
		return r.Status
	case wf.ReviewStatusPassed:
		return "attested_blocked"
	}
	return "none"
}

// noteExpired tells the producer, on a review gate whose last request
// expired unanswered or whose pass went stale, to request a new review.
func noteExpired(gate *reviewGateResp, r wf.ReviewState) {
	if r.Status == wf.ReviewStatusNone && r.ExpiredRequestID != "" {
		gate.ExpiredRequestID = r.ExpiredRequestID
		gate.Hint = "the last review request expired unanswered; call review.request again"
	}
	if gate.Status == "attested_blocked" {
		gate.Hint = "the review is of an earlier snapshot; the target changed since, so request a new review"
	}
}
