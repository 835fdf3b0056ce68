package research

import (
	"slices"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// ExperimentInput starts an experiment workflow.
type ExperimentInput struct {
	ProjectID    string   `json:"project_id"`
	ExperimentID string   `json:"experiment_id"`
	Name         string   `json:"name"`
	DependsOn    []string `json:"depends_on,omitempty"`
}

// ArtifactRef is an uploaded artifact as the workflow knows it.
type ArtifactRef struct {
	ArtifactID string   `json:"artifact_id"`
	Role       string   `json:"role"`
	Path       string   `json:"path"`
	Attempt    int      `json:"attempt_index"`
	SHA256     string   `json:"sha256"`
	Size       int64    `json:"size_bytes"`
	Valid      bool     `json:"valid"`
	Problems   []string `json:"problems,omitempty"`
	// UploadedAt is when its bytes landed (the database's record): of two
	// uploads at one key, the later one stands, whichever notice the
	// workflow applies last. Zero in records made before it was kept.
	UploadedAt time.Time `json:"uploaded_at,omitzero"`
}

// Review states.
const (
	ReviewStatusNone      = "none"
	ReviewStatusRequested = "requested"
	ReviewStatusStarted   = "started"
	ReviewStatusPassed    = "passed"
)

// ReviewState is the latest review of one kind (design, experiment).
type ReviewState struct {
	Status        string    `json:"status"`
	RequestID     string    `json:"request_id,omitempty"`
	Role          string    `json:"role,omitempty"`
	ExpiresAt     time.Time `json:"expires_at,omitempty"`
	SnapshotToken string    `json:"snapshot_token,omitempty"`
	// ExpiredRequestID is the request that expired unanswered, leaving this
	// review to be requested again.
	ExpiredRequestID string `json:"expired_request_id,omitempty"`
}

// RevisionContext says why an experiment went back.
type RevisionContext struct {
	From      gates.Status `json:"from"`
	Verdict   string       `json:"verdict,omitempty"`
	ReturnTo  string       `json:"return_to,omitempty"`
	Synopsis  string       `json:"synopsis,omitempty"`
	Notes     string       `json:"notes,omitempty"`
	Reason    string       `json:"reason,omitempty"`
	RequestID string       `json:"review_request_id,omitempty"`
	// Findings and Evidence are the rejecting reviewer's.
	Findings []any          `json:"findings,omitempty"`
	Evidence map[string]any `json:"evidence,omitempty"`
}

// TransitionRecord is one sealed status change.
type TransitionRecord struct {
	Transition string       `json:"transition"`
	From       gates.Status `json:"from"`
	To         gates.Status `json:"to"`
	Attempt    int          `json:"attempt_index"`
	Sealed     []string     `json:"sealed_artifact_ids"`
	At         time.Time    `json:"at"`
}

// ExperimentState is the workflow's state, returned by StateQuery.
type ExperimentState struct {
	ProjectID       string                  `json:"project_id"`
	ExperimentID    string                  `json:"experiment_id"`
	Name            string                  `json:"name"`
	Status          gates.Status            `json:"status"`
	Attempt         int                     `json:"attempt_index"`
	Revision        int                     `json:"revision"`
	Artifacts       map[string]ArtifactRef  `json:"artifacts"`
	Reviews         map[string]ReviewState  `json:"reviews"`
	Dependencies    map[string]gates.Status `json:"dependencies,omitempty"`
	RevisionContext *RevisionContext        `json:"revision_context,omitempty"`
	Conclusion      string                  `json:"conclusion,omitempty"`
	History         []TransitionRecord      `json:"history"`
	// SandboxesRunning are the attached sandboxes reported running
	// (SandboxActivitySignal), sorted; any makes the gate execution_active.
	SandboxesRunning []string `json:"sandboxes_running,omitempty"`
	// SandboxInterrupted is the last attached sandbox to stop, if it
	// ended abnormally while the experiment ran (see SandboxReported).
	SandboxInterrupted *SandboxInterruption `json:"sandbox_interrupted,omitempty"`
	// RejectedSignals are gate-opening signals no authenticated record backed.
	RejectedSignals []RejectedSignal `json:"rejected_signals,omitempty"`
}

// SandboxInterruption is an attached sandbox that ended abnormally while
// its experiment ran. It asks for retry_running until a result of the
// attempt lands, a sandbox runs again or the experiment moves on.
type SandboxInterruption struct {
	SandboxUID string `json:"sandbox_uid"`
	// Ended says how it ended (a SandboxEnd* reason other than released,
	// or the reaper's word for a machine it found orphaned).
	Ended string `json:"ended"`
	// HistoryLen is len(History) when it ended: once a transition grew
	// History (retry_running, or any other), it asks for nothing.
	HistoryLen int `json:"history_len"`
}

// ReviewKindOf returns the review kind pending at a status ("" if none),
// the key of Reviews.
func ReviewKindOf(s gates.Status) string {
	switch s {
	case gates.DesignReview:
		return "design"
	case gates.ExperimentReview:
		return "experiment"
	}
	return ""
}

// SnapshotToken fingerprints what a reviewer sees: status, attempt and the
// current artifacts. A review passes only on the snapshot it was requested for.
func (s *ExperimentState) SnapshotToken() string {
	return fingerprint(string(s.Status)+"|"+strconv.Itoa(s.Attempt), s.Artifacts, func(ArtifactRef) bool { return true }, "")
}

// Facts derives the gate machine's evidence levels from the state.
func (s *ExperimentState) Facts() gateengine.Facts {
	f := gateengine.Facts{}
	for role, a := range s.Artifacts {
		if a.Attempt != s.Attempt {
			continue
		}
		f[gateengine.Evidence(role)] = artifactLevel(a)
	}
	if len(s.Dependencies) > 0 {
		lv := gateengine.Satisfied
		for _, st := range s.Dependencies {
			switch st {
			case gates.Complete:
			case gates.Failed, gates.Abandoned:
				lv = gateengine.Invalid
			default:
				if lv == gateengine.Satisfied {
					lv = gateengine.Missing
				}
			}
		}
		f[gates.EvDependencies] = lv
	}
	if len(s.SandboxesRunning) > 0 {
		f[gates.EvSandboxRunning] = gateengine.Satisfied
	}
	if s.interrupted() {
		f[gates.EvSandboxInterrupted] = gateengine.Satisfied
	}
	if s.failedUnrevised(gates.DesignReview) {
		f[gates.EvDesignFailed] = gateengine.Satisfied
	}
	if s.failedUnrevised(gates.ExperimentReview) {
		f[gates.EvAttemptFailed] = gateengine.Satisfied
	}
	if kind := ReviewKindOf(s.Status); kind != "" {
		reviewFact(f, gates.ReviewEvidence[s.Status], s.Reviews[kind], s.SnapshotToken)
	}
	return f
}

// Decision evaluates the current gate.
func (s *ExperimentState) Decision() gateengine.Decision { return gates.Evaluate(s.Status, s.Facts()) }

// failedUnrevised reports whether the review at status from failed the
// experiment last and no artifact landed since (see unrevised).
func (s *ExperimentState) failedUnrevised(from gates.Status) bool {
	return lastVerdictFailed(s.RevisionContext, s.History, from) && unrevised(s.History, s.Artifacts, s.Attempt)
}

// SandboxReported applies an attached sandbox's activity report (the
// SandboxActivitySignal payload): running, it joins SandboxesRunning;
// stopped, it leaves them. ended says how a stopped sandbox ended: ""
// for a detach or a report of no end, SandboxEndReleased for the agent's
// release, anything else (expired, provisioning_failed, reaped, lost) an
// abnormal end. The last sandbox to stop while the experiment runs
// decides SandboxInterrupted: an abnormal end records it, any other
// report clears it, and a repeat of the recorded one changes nothing
// (signals may repeat). It answers whether the gate may have changed; a
// report without ended (every report recorded before the field) changes
// only SandboxesRunning, as before.
func (s *ExperimentState) SandboxReported(uid string, running bool, ended string) bool {
	changed := false
	i, found := slices.BinarySearch(s.SandboxesRunning, uid)
	switch {
	case running && !found:
		s.SandboxesRunning, changed = slices.Insert(s.SandboxesRunning, i, uid), true
	case !running && found:
		s.SandboxesRunning, changed = slices.Delete(s.SandboxesRunning, i, i+1), true
	}
	in := s.SandboxInterrupted
	switch {
	case !running && ended != "" && ended != SandboxEndReleased && s.Status == gates.Running:
		if in == nil || in.SandboxUID != uid {
			s.SandboxInterrupted, changed = &SandboxInterruption{SandboxUID: uid, Ended: ended, HistoryLen: len(s.History)}, true
		}
	case in != nil:
		s.SandboxInterrupted, changed = nil, true
	}
	return changed
}

// interrupted reports whether SandboxInterrupted asks for retry_running
// now: the experiment still runs, with no sandbox running and no result
// of its attempt, and no transition came since the sandbox ended.
func (s *ExperimentState) interrupted() bool {
	in := s.SandboxInterrupted
	if in == nil || s.Status != gates.Running || len(s.SandboxesRunning) > 0 || len(s.History) != in.HistoryLen {
		return false
	}
	r, ok := s.Artifacts[string(gates.EvResult)]
	return !ok || r.Attempt != s.Attempt
}
