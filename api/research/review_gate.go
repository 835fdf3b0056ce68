package research

import wf "github.com/gatehouse/gatehouse/workflows/research"

// reviewGateStatus is the review_gate status of the contract's list
// (none, requested, started, attested_blocked) for the review of a gate
// still waiting for one. A pass that no longer counts, because the target
// changed after the reviewer attested it, is attested_blocked.
func reviewGateStatus(r wf.ReviewState) string {
	switch r.Status {
	case wf.ReviewStatusRequested, wf.ReviewStatusStarted:
		return r.Status
	case wf.ReviewStatusPassed:
		return "attested_blocked"
	}
	return "none"
}

// noteExpired tells the producer, on a review gate whose last request
// expired unanswered or whose pass went stale, to request a new review.
func noteExpired(gate map[string]any, r wf.ReviewState) {
	if r.Status == wf.ReviewStatusNone && r.ExpiredRequestID != "" {
		gate["expired_request_id"] = r.ExpiredRequestID
		gate["hint"] = "the last review request expired unanswered; call review.request again"
	}
	if r.Status == wf.ReviewStatusPassed {
		gate["hint"] = "the review passed an earlier snapshot; the target changed since, so request a new review"
	}
}
