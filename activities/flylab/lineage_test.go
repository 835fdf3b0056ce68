package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"gorm.io/gorm"

	science "github.com/gatehouse/gatehouse/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// designCall designs the MDN trial with seed in the session state st.
func designCall(t *testing.T, a *Activities, st wf.SessionState, seed int) *wf.ExperimentRef {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"page_session_id": "session_t", "expected_state_revision": st.Revision,
		"hypothesis_id": "hyp_t", "target_circuit_id": "circuit_mdn_backward", "perturbation": "activate",
		"laterality": "bilateral", "activation_level": 0.8, "onset_ms": 500, "duration_ms": 1000, "trial_duration_ms": 3000,
		"replicates": 2, "include_baseline": true, "include_sham_control": true, "seed": seed})
	st.SessionID = "session_t"
	eff, err := a.DesignTrial(context.Background(), wf.ToolCall{SessionID: "session_t", Tool: wf.ToolDesign, Args: args,
		ResultKey: "session_t/design/" + string(rune('a'+st.Revision)), Session: st})
	if err != nil || eff.Failure != nil || eff.Patch.Experiment == nil {
		t.Fatalf("design: err=%v failure=%+v", err, eff.Failure)
	}
	return eff.Patch.Experiment
}

func storeHypothesis(t *testing.T, db *gorm.DB) {
	t.Helper()
	body, _ := json.Marshal(HypothesisRecord{ID: "hyp_t", CircuitID: "circuit_mdn_backward", Perturbation: "activate"})
	if err := models.CreateOnce(context.Background(), db, &models.Hypothesis{ID: "hyp_t", SessionID: "session_t",
		CircuitID: "circuit_mdn_backward", Body: string(body)}); err != nil {
		t.Fatal(err)
	}
}

func statusOf(t *testing.T, db *gorm.DB, id string) string {
	t.Helper()
	row, err := models.ExperimentByID(context.Background(), db, id)
	if err != nil {
		t.Fatal(err)
	}
	return row.Status
}

// commitDesign does what the session's commit of a design that replaced
// the open experiment old does: the experiment workflow records old's
// revocation.
func commitDesign(t *testing.T, db *gorm.DB, old *wf.ExperimentRef) {
	t.Helper()
	if err := models.RecordDecision(context.Background(), db, old.ID, models.StatusRevoked, "", "session", "superseded"); err != nil {
		t.Fatal(err)
	}
}

// TestDesignTrial_ADesignThatDidNotCommitRevokesNothing designs A, then B
// without committing B (cancelled before its commit, or lost with its
// worker): A is still awaiting the operator, who can approve it, and the
// session's state, which still names A, agrees with its record.
func TestDesignTrial_ADesignThatDidNotCommitRevokesNothing(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		storeHypothesis(t, db)
		a := &Activities{DB: db}
		first := designCall(t, a, wf.SessionState{Revision: 3}, 7)
		first.Status = wf.ExperimentAwaiting
		designCall(t, a, wf.SessionState{Revision: 4, Experiment: first}, 8)
		if s := statusOf(t, db, first.ID); s != models.StatusAwaitingApproval {
			t.Fatalf("a design that never committed left the session's open experiment %s, want awaiting_approval", s)
		}
	})
}

// TestDesignTrial_ReturnToAnEarlierDesignIsANewExperiment designs A, then
// B, then A again, each committed: the third design is a new experiment
// awaiting its own approval (A's record stays revoked), so the operator
// can decide it.
func TestDesignTrial_ReturnToAnEarlierDesignIsANewExperiment(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		storeHypothesis(t, db)
		a := &Activities{DB: db}
		first := designCall(t, a, wf.SessionState{Revision: 3}, 7)
		first.Status = wf.ExperimentAwaiting
		second := designCall(t, a, wf.SessionState{Revision: 4, Experiment: first}, 8)
		commitDesign(t, db, first)
		second.Status = wf.ExperimentAwaiting
		back := designCall(t, a, wf.SessionState{Revision: 5, Experiment: second}, 7)
		commitDesign(t, db, second)
		if back.ID == first.ID || back.ID == second.ID || back.DesignKey != first.DesignKey {
			t.Fatalf("A→B→A reused an id: %s %s %s (keys %s %s)", first.ID, second.ID, back.ID, first.DesignKey, back.DesignKey)
		}
		if s := statusOf(t, db, back.ID); s != models.StatusAwaitingApproval {
			t.Fatalf("the return to A is %s, want awaiting_approval", s)
		}
		if s := statusOf(t, db, first.ID); s != models.StatusRevoked {
			t.Fatalf("the first A is %s, want revoked", s)
		}
		pending, err := models.ListExperiments(context.Background(), db, models.StatusAwaitingApproval, 10)
		if err != nil || len(pending) != 1 || pending[0].ID != back.ID {
			t.Fatalf("pending list %+v (%v), want only %s", pending, err, back.ID)
		}
	})
}

// TestDesignTrial_ReplicationOfARunDesignIsANewExperiment repeats a design
// after it ran: a new experiment awaiting approval. An identical repeat
// while the gate is still open keeps the experiment (and its approval).
func TestDesignTrial_ReplicationOfARunDesignIsANewExperiment(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		storeHypothesis(t, db)
		a := &Activities{DB: db}
		ran := designCall(t, a, wf.SessionState{Revision: 3}, 7)
		if err := models.RecordDecision(context.Background(), db, ran.ID, models.StatusApproved, "{}", "olga", ""); err != nil {
			t.Fatal(err)
		}
		if err := models.RecordDecision(context.Background(), db, ran.ID, models.StatusRan, "", "session", ""); err != nil {
			t.Fatal(err)
		}
		ran.Status = wf.ExperimentRan
		again := designCall(t, a, wf.SessionState{Revision: 9, Experiment: ran}, 7)
		if again.ID == ran.ID || statusOf(t, db, again.ID) != models.StatusAwaitingApproval || statusOf(t, db, ran.ID) != models.StatusRan {
			t.Fatalf("replication %s of %s: %s / %s", again.ID, ran.ID, statusOf(t, db, again.ID), statusOf(t, db, ran.ID))
		}
		again.Status = wf.ExperimentApproved
		repeat := designCall(t, a, wf.SessionState{Revision: 10, Experiment: again}, 7)
		if repeat.ID != again.ID || repeat.ProtocolHash != again.ProtocolHash {
			t.Fatalf("an identical repeat of an open design moved the lineage: %s -> %s", again.ID, repeat.ID)
		}
		other := designCall(t, a, wf.SessionState{Revision: 3}, 7)
		if other.ID != ran.ID {
			t.Fatalf("a retried design call got another id: %s vs %s", other.ID, ran.ID)
		}
	})
}

// analysisOf simulates and analyses an MDN design at the given activation
// level and stores the analysis in session_t.
func analysisOf(t *testing.T, db *gorm.DB, circuit string, level float64) wf.AnalysisRef {
	t.Helper()
	d, err := science.DesignProtocol(science.DesignRequest{HypothesisID: "hyp_t", TargetCircuitID: circuit, Perturbation: "activate",
		Laterality: "bilateral", ActivationLevel: level, OnsetMs: 200, DurationMs: 500, TrialDurationMs: 1500, Replicates: 1,
		IncludeBaseline: true, IncludeShamControl: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := science.Simulate(d.Experiment.Protocol, d.SeedManifest, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := science.Analyze(b, b.MotorMap.RecommendedMetrics)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(res.Analysis)
	if err := models.CreateOnce(context.Background(), db, &models.Analysis{ID: res.Analysis.ID, SessionID: "session_t",
		BatchID: b.ID, Body: string(body)}); err != nil {
		t.Fatal(err)
	}
	return wf.AnalysisRef{ID: res.Analysis.ID, BatchID: b.ID}
}

// TestCompare_OriginalAgainstFollowUp ranks the analysis of an earlier
// batch with the current one (both in the session's analysis history) and
// refuses to add an analysis with another panel.
func TestCompare_OriginalAgainstFollowUp(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		a := &Activities{DB: db}
		original := analysisOf(t, db, "circuit_mdn_backward", 0.8)
		followUp := analysisOf(t, db, "circuit_mdn_backward", 0.4)
		escape := analysisOf(t, db, "circuit_gf_short_escape", 0.8)
		st := wf.SessionState{SessionID: "session_t", Analyses: []wf.AnalysisRef{followUp},
			AnalysisHistory: []wf.AnalysisRef{original, escape, followUp}}
		compare := func(ids ...string) wf.ToolEffect {
			args, _ := json.Marshal(map[string]any{"analysis_ids": ids, "objective_metric": "response_latency_ms", "objective": "minimize"})
			eff, err := a.Compare(context.Background(), wf.ToolCall{SessionID: "session_t", Tool: wf.ToolCompare, Args: args,
				ResultKey: "k/" + ids[0] + "/" + ids[len(ids)-1], Session: st})
			if err != nil {
				t.Fatal(err)
			}
			return eff
		}
		eff := compare(original.ID, followUp.ID)
		if eff.Failure != nil || eff.Patch.Comparison == nil || !slices.Equal(eff.Patch.Comparison.AnalysisIDs, []string{original.ID, followUp.ID}) {
			t.Fatalf("original vs follow-up: %+v %+v", eff.Failure, eff.Patch.Comparison)
		}
		if eff := compare(original.ID, followUp.ID, escape.ID); eff.Failure == nil || eff.Failure.Code != science.CodeIncomparableAnalyses {
			t.Fatalf("mixed panels: %+v", eff.Failure)
		}
		if eff := compare("analysis_of_another_session"); eff.Failure == nil || eff.Failure.Code != wf.CodeNotFound {
			t.Fatalf("unknown analysis: %+v", eff.Failure)
		}
	})
}

// TestVerifyDecision_OnlyTheRecordedOperatorDecisionIsAuthentic plays the
// signals an attacker who reaches Temporal could send with correct
// values: none names an operator decision record the API wrote for this
// experiment, decision and hash, so each is refused and recorded once
// per attempt; the recorded decision is authentic, with its own operator.
func TestVerifyDecision_OnlyTheRecordedOperatorDecisionIsAuthentic(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		a := &Activities{DB: db}
		hash := "sha256:" + string(slices.Repeat([]byte("1"), 64))
		if err := models.CreateDecision(ctx, db, models.OperatorDecision{ID: "decision_real", ExperimentID: "exp_1",
			Status: models.StatusApproved, ProtocolHash: hash, Operator: "olga"}); err != nil {
			t.Fatal(err)
		}
		forged := []wf.DecisionCheck{
			{ExperimentID: "exp_1", Status: wf.ExperimentApproved, ProtocolHash: hash, ClaimedOperator: "olga", AttemptKey: "run/1"},
			{ExperimentID: "exp_1", Status: wf.ExperimentApproved, ProtocolHash: hash, DecisionID: "decision_guess", AttemptKey: "run/2"},
			{ExperimentID: "exp_2", Status: wf.ExperimentApproved, ProtocolHash: hash, DecisionID: "decision_real", AttemptKey: "run/3"},
			{ExperimentID: "exp_1", Status: wf.ExperimentRejected, ProtocolHash: hash, DecisionID: "decision_real", AttemptKey: "run/4"},
			{ExperimentID: "exp_1", Status: wf.ExperimentApproved, ProtocolHash: "sha256:other", DecisionID: "decision_real", AttemptKey: "run/5"},
		}
		for _, c := range append(forged, forged[0]) {
			v, err := a.VerifyDecision(ctx, c)
			if err != nil || v.Authentic || v.Refusal == "" {
				t.Fatalf("forged %+v: %+v %v", c, v, err)
			}
		}
		var refusals int64
		db.Model(&models.GateRefusal{}).Count(&refusals)
		if refusals != int64(len(forged)) {
			t.Fatalf("%d refusals recorded, want %d (one per attempt)", refusals, len(forged))
		}
		v, err := a.VerifyDecision(ctx, wf.DecisionCheck{ExperimentID: "exp_1", Status: wf.ExperimentApproved, ProtocolHash: hash,
			DecisionID: "decision_real", ClaimedOperator: "mallory", AttemptKey: "run/6"})
		if err != nil || !v.Authentic || v.Operator != "olga" {
			t.Fatalf("recorded decision: %+v %v", v, err)
		}
	})
}

// TestCheckApproval_LapsedApprovalIsRefused: an approval record whose
// experiment the 30-day timer revoked no longer authorizes a run, even if
// the session still shows it approved.
func TestCheckApproval_LapsedApprovalIsRefused(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		storeHypothesis(t, db)
		a := &Activities{DB: db}
		ctx := context.Background()
		exp := designCall(t, a, wf.SessionState{Revision: 3}, 7)
		if err := a.RecordDecision(ctx, wf.DecisionRecord{ExperimentID: exp.ID, Status: wf.ExperimentApproved, ProtocolHash: exp.ProtocolHash,
			DecidedAt: "2026-12-01T08:00:00Z", DecidedBy: "olga"}); err != nil {
			t.Fatal(err)
		}
		check := func() error {
			row, err := models.ExperimentByID(ctx, db, exp.ID)
			if err != nil {
				t.Fatal(err)
			}
			d, err := loadDesign(row)
			if err != nil {
				t.Fatal(err)
			}
			_, err = checkApproval(row, d)
			return err
		}
		if err := check(); err != nil {
			t.Fatalf("a standing approval refused: %v", err)
		}
		if err := models.RecordDecision(ctx, db, exp.ID, models.StatusRevoked, "", "timer", "approval expired before the experiment ran"); err != nil {
			t.Fatal(err)
		}
		var se *science.Error
		if err := check(); !errors.As(err, &se) || se.Code != science.CodeApprovalRequired {
			t.Fatalf("a lapsed approval: %v, want APPROVAL_REQUIRED", err)
		}
	})
}
