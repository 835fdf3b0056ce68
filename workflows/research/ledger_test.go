package research

import (
	"context"
	"sync"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// ledger stands in for the database the api writes before it signals: a
// signal sent through it is backed by a record VerifyDecision finds; a
// signal sent straight to the workflow (a forgery) is not.
type ledger struct {
	mu      sync.Mutex
	records map[string]DecisionRecord
	queries []DecisionQuery
	// held records fail this many more verifications with a retryable
	// error, as when the worker running it died.
	held map[string]int
}

func newLedger(env *testsuite.TestWorkflowEnvironment) *ledger {
	l := &ledger{records: map[string]DecisionRecord{}, held: map[string]int{}}
	env.RegisterActivityWithOptions(l.verify, activity.RegisterOptions{Name: VerifyDecisionActivity})
	return l
}

// record writes what the api would have written before sending signal.
func (l *ledger) record(signal string, v any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch p := v.(type) {
	case ArtifactRef:
		l.records[signal+p.ArtifactID] = DecisionRecord{Artifact: &ReflectionArtifact{ArtifactRef: p}}
	case ReflectionArtifact:
		l.records[signal+p.ArtifactID] = DecisionRecord{Artifact: &p}
	case ReviewRequested:
		l.setReview(p.RequestID, ReviewRecord{RequestID: p.RequestID, Kind: p.Kind, Role: p.Role, Status: RecordRequested,
			ExpiresAt: p.ExpiresAt, SnapshotToken: p.SnapshotToken})
	case ReviewStarted:
		r := l.review(p.RequestID)
		r.Status = RecordStarted
		l.setReview(p.RequestID, r)
	case ReviewVerdict:
		r := l.review(p.RequestID)
		r.Status, r.Verdict, r.ReturnTo, r.Synopsis, r.Notes = RecordSubmitted, p.Verdict, p.ReturnTo, p.Synopsis, p.Notes
		r.Findings, r.Evidence = p.Findings, p.Evidence
		l.setReview(p.RequestID, r)
	case ProposalRef:
		l.records[signal+p.ProposalID] = DecisionRecord{Proposal: &p}
	case DependencySettled:
		l.records[signal+p.ExperimentID] = DecisionRecord{Dependency: &p}
	}
}

// hold makes the next attempts verifications of recordID fail, retryably.
func (l *ledger) hold(recordID string, attempts int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held[recordID] = attempts
}

func (l *ledger) review(id string) ReviewRecord {
	if r := l.records["review"+id].Review; r != nil {
		return *r
	}
	return ReviewRecord{RequestID: id}
}

func (l *ledger) setReview(id string, r ReviewRecord) {
	l.records["review"+id] = DecisionRecord{Review: &r}
}

// verify is the fake VerifyDecisionActivity: the record, or a refusal.
func (l *ledger) verify(_ context.Context, q DecisionQuery) (DecisionRecord, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.queries = append(l.queries, q)
	if l.held[q.RecordID] > 0 {
		l.held[q.RecordID]--
		return DecisionRecord{}, temporal.NewApplicationError("the worker verifying "+q.RecordID+" died", "held")
	}
	key := q.Signal + q.RecordID
	switch q.Signal {
	case ReviewRequestedSignal, ReviewStartedSignal, ReviewVerdictSignal:
		key = "review" + q.RecordID
	}
	rec, ok := l.records[key]
	if !ok || (q.Signal == ReviewVerdictSignal && rec.Review.Status != RecordSubmitted) {
		return DecisionRecord{}, temporal.NewNonRetryableApplicationError("no record backs "+q.Signal+" "+q.RecordID, ErrTypeDecisionRefused, nil)
	}
	return rec, nil
}
