package research

import (
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// TestNotice_ALateNoticeOfAnOlderUploadKeepsTheNewerArtifact: the notice
// of a first upload is held up (its verification keeps failing, as on a
// worker that died) while the producer uploads the role again; the
// second applies, and when the first finally does, the newer upload
// stays and the snapshot a review was requested for does not change.
func TestNotice_ALateNoticeOfAnOlderUploadKeepsTheNewerArtifact(t *testing.T) {
	h := newHarness(t)
	at := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	older := ArtifactRef{ArtifactID: "art_first", Role: "plan", Path: "plan.md", SHA256: "aa", Size: 2, Valid: true, UploadedAt: at}
	newer := ArtifactRef{ArtifactID: "art_second", Role: "plan", Path: "plan.md", SHA256: "bb", Size: 2, Valid: true, UploadedAt: at.Add(time.Second)}
	var answers []string
	answer := func(st ExperimentState, err error) {
		if err != nil {
			t.Errorf("notice: %v", err)
		}
		answers = append(answers, st.Artifacts["plan"].ArtifactID+"@"+st.SnapshotToken())
	}
	h.add(func() {
		h.db.record(ArtifactLandedSignal, older)
		h.db.record(ArtifactLandedSignal, newer)
		h.db.hold(older.ArtifactID, 3) // retried for about 1.4 s
		first := Notice{Signal: ArtifactLandedSignal, RecordID: older.ArtifactID}
		notify(h.env, first.UpdateID(), first, answer)
		second := Notice{Signal: ArtifactLandedSignal, RecordID: newer.ArtifactID}
		notify(h.env, second.UpdateID(), second, answer)
	}).add(func() {
		if st := h.state(); st.Artifacts["plan"].ArtifactID != newer.ArtifactID || len(st.RejectedSignals) != 0 {
			t.Errorf("plan %s after both notices (rejected %v), want %s", st.Artifacts["plan"].ArtifactID, st.RejectedSignals, newer.ArtifactID)
		}
	}).transition(gates.TAbandon, nil)
	h.run(input)
	// The second notice answers first; the late first one answers the
	// same plan and snapshot.
	if len(answers) != 2 || answers[0] != answers[1] || !strings.HasPrefix(answers[0], newer.ArtifactID+"@") {
		t.Fatalf("answers %v: the held notice of the older upload must leave the newer one and its snapshot", answers)
	}
}

// TestNotice_ANewerUploadReplacesTheArtifact: uploads applied in order
// replace one another, and a record without an upload time (made before
// it was kept) still replaces.
func TestNotice_ANewerUploadReplacesTheArtifact(t *testing.T) {
	h := newHarness(t)
	at := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	refs := []ArtifactRef{
		{ArtifactID: "art_1", Role: "plan", Path: "plan.md", SHA256: "aa", Size: 2, Valid: true, UploadedAt: at},
		{ArtifactID: "art_2", Role: "plan", Path: "plan.md", SHA256: "bb", Size: 2, Valid: true, UploadedAt: at.Add(time.Second)},
		{ArtifactID: "art_3", Role: "plan", Path: "plan.md", SHA256: "cc", Size: 2, Valid: true},
	}
	for _, r := range refs {
		h.add(func() {
			h.db.record(ArtifactLandedSignal, r)
			n := Notice{Signal: ArtifactLandedSignal, RecordID: r.ArtifactID}
			notify(h.env, n.UpdateID(), n, func(ExperimentState, error) {})
		}).add(func() {
			if got := h.state().Artifacts["plan"].ArtifactID; got != r.ArtifactID {
				t.Errorf("plan %s after the notice of %s", got, r.ArtifactID)
			}
		})
	}
	h.transition(gates.TAbandon, nil).run(input)
}
