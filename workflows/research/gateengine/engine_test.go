package gateengine

import (
	"errors"
	"slices"
	"testing"
)

type toyStatus string

func (s toyStatus) Terminal() bool { return s == "done" }

// toy is a two-stage machine using every row feature once.
var toy = &Machine[toyStatus]{
	Noun: "toy",
	Stages: []Stage[toyStatus]{
		{Status: "open", Requirements: []Requirement{
			{Evidence: "doc", Kind: KindArtifact, Gate: "doc_required", NextAction: "write_doc", ActiveGate: "doc_active", ActiveWhen: "busy"},
			{Evidence: "deps", Kind: KindDependencies, Gate: "deps_pending", NextAction: "wait", InvalidGate: "dep_failed", InvalidAction: "give_up"},
			{Evidence: "review", Kind: KindReview, Gate: "review_required", RequestedGate: "reviewing", NextAction: "ask", WaitAction: "wait_review"},
			{Evidence: "advance", Kind: KindAdvance, Gate: "advance_due", NextAction: "advance", WaitAction: "wait_advance", LocksSide: true},
		}, Forward: Forward{Transition: "finish", Gate: "ready", NextAction: "finish"}, Side: []string{"drop"}},
	},
	Moves:          []Move[toyStatus]{{Name: "finish", To: "done"}, {Name: "drop", To: "done"}},
	Aliases:        map[string]string{"finish_now": "finish"},
	TransitionTool: "t.transition", StatusTool: "t.status",
}

func TestEvaluate_EachRowFeature(t *testing.T) {
	all := Facts{"doc": Satisfied, "review": Satisfied, "advance": Satisfied}
	with := func(e Evidence, lv Level) Facts {
		f := Facts{}
		for k, v := range all {
			f[k] = v
		}
		f[e] = lv
		return f
	}
	cases := []struct {
		name       string
		f          Facts
		gate, next string
	}{
		{"artifact missing", with("doc", Missing), "doc_required", "write_doc"},
		{"artifact active", func() Facts { f := with("doc", Missing); f["busy"] = Satisfied; return f }(), "doc_active", "write_doc"},
		{"artifact invalid", with("doc", Invalid), "doc_invalid", "fix_doc_artifact"},
		{"dependencies absent are met", all, "ready", "finish"},
		{"dependencies failed", with("deps", Invalid), "dep_failed", "give_up"},
		{"dependencies pending", with("deps", Missing), "deps_pending", "wait"},
		{"review requested", with("review", Requested), "reviewing", "ask"},
		{"review started", with("review", Started), "reviewing", "wait_review"},
		{"advance intended", with("advance", Requested), "advance_due", "wait_advance"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := toy.Evaluate("open", c.f)
			if d.Gate != c.gate || d.NextAction != c.next {
				t.Fatalf("gate/next = %s/%s, want %s/%s", d.Gate, d.NextAction, c.gate, c.next)
			}
			if !slices.Contains(d.AllowedTools, "t.status") {
				t.Fatalf("allowed_actions %v lacks the status tool", d.AllowedTools)
			}
		})
	}
}

func TestCheck_LockedSideAndUnknownAndTerminal(t *testing.T) {
	f := Facts{"doc": Satisfied, "review": Satisfied, "advance": Requested}
	var be *BlockedError
	if _, err := toy.Check("open", f, "drop"); !errors.As(err, &be) || be.BlockedActions[0] != (Blocked{Action: "drop", Reason: "advance_in_flight"}) {
		t.Fatalf("drop while the advance is in flight: %v %+v", err, be)
	}
	if m, err := toy.Check("open", Facts{"doc": Satisfied, "review": Satisfied, "advance": Satisfied}, "finish_now"); err != nil || m.Name != "finish" {
		t.Fatalf("alias: %v %v", m, err)
	}
	var ue *UnknownTransitionError
	if _, err := toy.Check("open", f, "fly"); !errors.As(err, &ue) || err.Error() != `unknown toy transition "fly"` {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := toy.Check("done", f, "drop"); !errors.As(err, &be) || be.BlockedActions[0].Reason != "terminal" {
		t.Fatalf("terminal: %v", err)
	}
}

func TestRouteVerdict_Table(t *testing.T) {
	rej := Rejection[toyStatus]{Routes: map[string]Route[toyStatus]{"open": {To: "open", NewAttempt: true}}, Missing: "say where", Other: "only open"}
	if r, err := RouteVerdict(rej, VerdictFail, "open"); err != nil || !r.Moves || !r.NewAttempt {
		t.Fatalf("fail→open: %+v %v", r, err)
	}
	for _, c := range []struct{ verdict, to, field, msg string }{
		{VerdictPass, "open", "return_to", "return_to is not allowed with a pass verdict"},
		{"maybe", "", "verdict", `unknown verdict "maybe"`},
		{VerdictNeedsChanges, "", "return_to", "say where"},
		{VerdictNeedsChanges, "elsewhere", "return_to", "only open"},
	} {
		var ve *VerdictError
		if _, err := RouteVerdict(rej, c.verdict, c.to); !errors.As(err, &ve) || ve.Field != c.field || ve.Message != c.msg {
			t.Errorf("%s/%s: %v", c.verdict, c.to, err)
		}
	}
	if r, err := RouteVerdict(rej, VerdictPass, ""); err != nil || r.Moves {
		t.Fatalf("pass moved: %+v %v", r, err)
	}
}
