package reflectgates

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

func satisfiedBefore(st gateengine.Stage[Status], i int) gateengine.Facts {
	f := gateengine.Facts{}
	for _, r := range st.Requirements[:i] {
		f[r.Evidence] = gateengine.Satisfied
	}
	return f
}

func TestTable_EveryRequirementNamesItsGateInOrder(t *testing.T) {
	for _, st := range Table {
		for i, r := range st.Requirements {
			for _, lv := range []gateengine.Level{gateengine.Missing, gateengine.Invalid, gateengine.Requested, gateengine.Started} {
				t.Run(fmt.Sprintf("%s/%s/%d", st.Status, r.Evidence, lv), func(t *testing.T) {
					f := satisfiedBefore(st, i)
					f[r.Evidence] = lv
					d := Evaluate(st.Status, f)
					wantGate, wantNext := r.Gate, r.NextAction
					switch {
					case (r.Kind == gateengine.KindArtifact || r.Kind == gateengine.KindLenses) && lv == gateengine.Invalid:
						wantGate, wantNext = string(r.Evidence)+"_invalid", "fix_"+string(r.Evidence)+"_artifact"
					case r.Kind == gateengine.KindReview && lv == gateengine.Started:
						wantNext = r.WaitAction
					case r.Kind == gateengine.KindAdvance && lv == gateengine.Invalid:
						wantGate, wantNext = r.InvalidGate, r.InvalidAction
					case r.Kind == gateengine.KindAdvance && lv == gateengine.Requested:
						wantNext = r.WaitAction
					}
					if r.Kind == gateengine.KindReview && r.RequestedGate != "" && (lv == gateengine.Requested || lv == gateengine.Started) {
						wantGate = r.RequestedGate
					}
					if d.Gate != wantGate || d.NextAction != wantNext {
						t.Fatalf("gate/next = %s/%s, want %s/%s", d.Gate, d.NextAction, wantGate, wantNext)
					}
					if d.MissingEvidence[0] != string(r.Evidence) {
						t.Fatalf("missing_evidence = %v", d.MissingEvidence)
					}
					var be *gateengine.BlockedError
					if _, err := Check(st.Status, f, st.Forward.Transition); !errors.As(err, &be) || be.Gate != wantGate {
						t.Fatalf("forward %s not blocked at %s: %v", st.Forward.Transition, wantGate, err)
					}
					locked := r.LocksSide && lv == gateengine.Requested
					for _, side := range st.Side {
						_, err := Check(st.Status, f, side)
						if locked != (err != nil) {
							t.Fatalf("side %s: locked=%v err=%v", side, locked, err)
						}
					}
					for _, tool := range r.AllowedTools {
						if !slices.Contains(d.AllowedTools, tool) {
							t.Fatalf("allowed_actions %v lacks %s", d.AllowedTools, tool)
						}
					}
					if r.Kind == gateengine.KindLenses || r.Kind == gateengine.KindArtifact {
						if d.ArtifactRole != string(r.Evidence) {
							t.Fatalf("artifact role %q", d.ArtifactRole)
						}
					}
				})
			}
		}
	}
}

func TestTable_AllRequirementsMetOpensForward(t *testing.T) {
	for _, st := range Table {
		f := satisfiedBefore(st, len(st.Requirements))
		d := Evaluate(st.Status, f)
		if d.Gate != st.Forward.Gate || d.NextAction != st.Forward.NextAction || len(d.MissingEvidence) != 0 {
			t.Errorf("%s: got %+v", st.Status, d)
		}
		if _, err := Check(st.Status, f, st.Forward.Transition); err != nil {
			t.Errorf("%s: forward refused: %v", st.Status, err)
			continue
		}
		for _, other := range Moves {
			if other.Name == st.Forward.Transition || slices.Contains(st.Side, other.Name) {
				continue
			}
			if _, err := Check(st.Status, f, other.Name); err == nil {
				t.Errorf("%s: %s allowed but is neither forward nor side", st.Status, other.Name)
			}
		}
	}
}

func TestTable_BoundAdvanceLocksAbandon(t *testing.T) {
	st, _ := StageOf(Consolidating)
	f := satisfiedBefore(st, len(st.Requirements))
	var be *gateengine.BlockedError
	if _, err := Check(Consolidating, f, TAbandon); !errors.As(err, &be) || be.BlockedActions[0].Reason != "central_advance_in_flight" {
		t.Fatalf("abandon after a bound advance: %v", err)
	}
}

func TestTable_PathsWalkTheContractGates(t *testing.T) {
	// The happy path in order: each gate of the reference table appears.
	var seen []string
	walk := []struct {
		s Status
		f gateengine.Facts
	}{
		{Reflecting, gateengine.Facts{}},
		{Reflecting, gateengine.Facts{EvLensDocs: gateengine.Satisfied}},
		{Synthesizing, gateengine.Facts{}},
		{Synthesizing, gateengine.Facts{EvProjectGraph: gateengine.Satisfied}},
		{Synthesizing, gateengine.Facts{EvProjectGraph: gateengine.Satisfied, EvReflectionDoc: gateengine.Satisfied}},
		{Synthesizing, gateengine.Facts{EvProjectGraph: gateengine.Satisfied, EvReflectionDoc: gateengine.Satisfied, EvChangeSpec: gateengine.Satisfied}},
		{ReflectionReview, gateengine.Facts{}},
		{ReflectionReview, gateengine.Facts{EvReflectionReview: gateengine.Satisfied}},
		{Consolidating, gateengine.Facts{}},
		{Consolidating, gateengine.Facts{EvProposal: gateengine.Satisfied}},
		{Consolidating, gateengine.Facts{EvProposal: gateengine.Satisfied, EvConsolidationReview: gateengine.Requested}},
		{Consolidating, gateengine.Facts{EvProposal: gateengine.Satisfied, EvConsolidationReview: gateengine.Satisfied}},
		{Published, gateengine.Facts{}},
	}
	for _, w := range walk {
		seen = append(seen, Evaluate(w.s, w.f).Gate)
	}
	want := []string{"reflection_roster_incomplete", "reflections_complete", "project_graph_required", "reflection_doc_required",
		"change_spec_required", "reflection_review_required", "reflection_review", "reflection_review_passed",
		"consolidation_proposal_required", "consolidation_review_required", "consolidating", "central_advance_required", "terminal"}
	if !slices.Equal(seen, want) {
		t.Fatalf("gates %v\nwant  %v", seen, want)
	}
}

func TestTable_TerminalStatusesAllowNothing(t *testing.T) {
	for _, s := range []Status{Published, Abandoned} {
		d := Evaluate(s, gateengine.Facts{})
		if d.Gate != "terminal" || d.NextAction != "none" || len(d.AllowedTools) != 0 {
			t.Errorf("%s: %+v", s, d)
		}
		for _, m := range Moves {
			if _, err := Check(s, gateengine.Facts{}, m.Name); err == nil {
				t.Errorf("%s: %s allowed", s, m.Name)
			}
		}
	}
	if _, err := Check(Reflecting, gateengine.Facts{}, "fly"); err == nil {
		t.Error("unknown transition accepted")
	}
}

func TestRouteVerdict_EveryCase(t *testing.T) {
	cases := []struct {
		kind, verdict, to string
		want              gateengine.Route[Status]
		errField          string
	}{
		{"reflection", "pass", "", gateengine.Route[Status]{}, ""},
		{"reflection", "pass", "synthesizing", gateengine.Route[Status]{}, "return_to"},
		{"reflection", "needs_changes", "synthesizing", gateengine.Route[Status]{Moves: true, To: Synthesizing}, ""},
		{"reflection", "fail", "synthesizing", gateengine.Route[Status]{Moves: true, To: Synthesizing}, ""},
		{"reflection", "needs_changes", "reflecting", gateengine.Route[Status]{Moves: true, To: Reflecting, NewAttempt: true}, ""},
		{"reflection", "fail", "reflecting", gateengine.Route[Status]{Moves: true, To: Reflecting, NewAttempt: true}, ""},
		{"reflection", "needs_changes", "", gateengine.Route[Status]{}, "return_to"},
		{"reflection", "needs_changes", "consolidating", gateengine.Route[Status]{}, "return_to"},
		{"reflection", "needs_changes", "planned", gateengine.Route[Status]{}, "return_to"},
		{"consolidation", "pass", "", gateengine.Route[Status]{}, ""},
		{"consolidation", "needs_changes", "", gateengine.Route[Status]{Moves: true, To: Consolidating, NewRevision: true}, ""},
		{"consolidation", "fail", "consolidating", gateengine.Route[Status]{Moves: true, To: Consolidating, NewRevision: true}, ""},
		{"consolidation", "needs_changes", "synthesizing", gateengine.Route[Status]{}, "return_to"},
		{"consolidation", "needs_changes", "reflecting", gateengine.Route[Status]{}, "return_to"},
		{"consolidation", "maybe", "", gateengine.Route[Status]{}, "verdict"},
		{"design", "pass", "", gateengine.Route[Status]{}, "verdict"},
	}
	for _, c := range cases {
		got, err := RouteVerdict(c.kind, c.verdict, c.to)
		var ve *gateengine.VerdictError
		if c.errField != "" {
			if !errors.As(err, &ve) || ve.Field != c.errField {
				t.Errorf("%+v: err %v, want field %s", c, err, c.errField)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%+v: got %+v, %v", c, got, err)
		}
	}
}

func TestCheckArtifact_FilledTemplatesPassRawOnesFail(t *testing.T) {
	for role := range Templates {
		if p := CheckArtifact(role, []byte(FilledTemplate(role))); len(p) != 0 {
			t.Errorf("%s: filled template fails: %v", role, p)
		}
		if role != string(EvProjectGraph) {
			if p := CheckArtifact(role, []byte(Templates[role].Text)); len(p) == 0 {
				t.Errorf("%s: unfilled template passes", role)
			}
		}
	}
	bad := map[string]string{
		`{"summary":"s","claim_changes":[{"claim_id":"c","statement":"x"}]}`:                                    "exactly one",
		`{"summary":"s","claim_changes":[{"claim_id":"c"}]}`:                                                    "changes nothing",
		`{"summary":"s","claim_changes":[{"statement":"x","confidence":"sure"}]}`:                               "unknown status",
		`{"summary":"s","follow_up_experiments":[{"name":"a1x"},{"name":"b1x"},{"name":"c1x"},{"name":"d1x"}]}`: "at most 3",
		`{"summary":"s","follow_up_experiments":[{"name":"Bad Name"}]}`:                                         "folder-safe",
		`{"summary":"s","follow_up_experiments":[{"name":"same"},{"name":"same"}]}`:                             "repeated",
		`{"summary":"","extra":1}`: "unknown field",
		`{"summary":""}`:           "summary is empty",
	}
	for doc, want := range bad {
		p := CheckArtifact(string(EvChangeSpec), []byte(doc))
		if len(p) == 0 || !strings.Contains(strings.Join(p, ";"), want) {
			t.Errorf("%s: problems %v, want %q", doc, p, want)
		}
	}
	if p := CheckArtifact("notes", []byte("x")); p != nil {
		t.Error("ungated role checked")
	}
	if got := TLDR(string(EvReflectionDoc), []byte(FilledTemplate(string(EvReflectionDoc)))); !strings.Contains(got, "conclusion") {
		t.Errorf("TLDR %q", got)
	}
}
