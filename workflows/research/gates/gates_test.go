package gates

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

// satisfiedBefore returns facts where every requirement of st before i is met.
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
					case r.Kind == gateengine.KindArtifact && lv == gateengine.Invalid:
						wantGate, wantNext = string(r.Evidence)+"_invalid", "fix_"+string(r.Evidence)+"_artifact"
					case r.Kind == gateengine.KindReview && lv == gateengine.Started:
						wantNext = r.WaitAction
					case r.Kind == gateengine.KindDependencies && lv == gateengine.Invalid:
						wantGate, wantNext = r.InvalidGate, r.InvalidAction
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
					for _, side := range st.Side {
						if _, err := Check(st.Status, f, side); err != nil {
							t.Fatalf("side transition %s refused: %v", side, err)
						}
					}
					for _, tool := range r.AllowedTools {
						if !slices.Contains(d.AllowedTools, tool) {
							t.Fatalf("allowed_actions %v lacks %s", d.AllowedTools, tool)
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
		// Every other non-side move is refused here.
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

func TestTable_TerminalStatusesAllowNothing(t *testing.T) {
	for _, s := range []Status{Complete, Failed, Abandoned} {
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
}

func TestTable_IsConsistentWithMoves(t *testing.T) {
	for _, st := range Table {
		if _, ok := MoveOf(st.Forward.Transition); !ok {
			t.Errorf("%s forward %s is not a move", st.Status, st.Forward.Transition)
		}
	}
	for alias, name := range Aliases {
		m, ok := MoveOf(alias)
		if !ok || m.Name != name {
			t.Errorf("alias %s does not resolve to %s", alias, name)
		}
	}
	if _, err := Check(Planned, gateengine.Facts{}, "fly"); err == nil {
		t.Error("unknown transition accepted")
	}
}

func TestRouteVerdict_EveryCase(t *testing.T) {
	cases := []struct {
		status      Status
		verdict, to string
		want        gateengine.Route[Status]
		errField    string
	}{
		{DesignReview, "pass", "", gateengine.Route[Status]{}, ""},
		{DesignReview, "pass", "planned", gateengine.Route[Status]{}, "return_to"},
		{DesignReview, "needs_changes", "", gateengine.Route[Status]{Moves: true, To: Planned}, ""},
		{DesignReview, "needs_changes", "planned", gateengine.Route[Status]{Moves: true, To: Planned}, ""},
		{DesignReview, "fail", "running", gateengine.Route[Status]{}, "return_to"},
		{ExperimentReview, "pass", "", gateengine.Route[Status]{}, ""},
		{ExperimentReview, "needs_changes", "planned", gateengine.Route[Status]{Moves: true, To: Planned, NewAttempt: true}, ""},
		{ExperimentReview, "needs_changes", "running", gateengine.Route[Status]{Moves: true, To: Running}, ""},
		{ExperimentReview, "fail", "planned", gateengine.Route[Status]{Moves: true, To: Planned, NewAttempt: true}, ""},
		{ExperimentReview, "fail", "", gateengine.Route[Status]{}, "return_to"},
		{ExperimentReview, "needs_changes", "reflecting", gateengine.Route[Status]{}, "return_to"},
		{ExperimentReview, "maybe", "", gateengine.Route[Status]{}, "verdict"},
		{Running, "pass", "", gateengine.Route[Status]{}, "verdict"},
	}
	for _, c := range cases {
		got, err := RouteVerdict(c.status, c.verdict, c.to)
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
	}
	for _, role := range []string{"plan", "report"} {
		if p := CheckArtifact(role, []byte(Templates[role].Text)); len(p) == 0 {
			t.Errorf("%s: unfilled template passes", role)
		}
	}
	if p := CheckArtifact("plan", []byte("# Plan\n## Hypothesis\nx\n")); len(p) < 3 {
		t.Errorf("plan lacking sections: %v", p)
	}
	cyc := `{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b"},{"from":"b","to":"a"}]}`
	if p := CheckArtifact("graph", []byte(cyc)); len(p) == 0 || !strings.Contains(p[0], "cycle") {
		t.Errorf("cyclic graph: %v", p)
	}
	var nodes []string
	for i := 0; i <= MaxGraphNodes; i++ {
		nodes = append(nodes, fmt.Sprintf(`{"id":"n%d"}`, i))
	}
	big := `{"nodes":[` + strings.Join(nodes, ",") + `],"edges":[]}`
	if p := CheckArtifact("graph", []byte(big)); len(p) == 0 {
		t.Error("17-node graph passes")
	}
	if p := CheckArtifact("result", []byte(`[1]`)); len(p) == 0 {
		t.Error("non-object results pass")
	}
	if p := CheckArtifact("notes", []byte("anything")); len(p) != 0 {
		t.Error("ungated role checked")
	}
}
