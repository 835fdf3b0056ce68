package research

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// wantBadTargetType fails unless err is invalid_input at /target_type.
func wantBadTargetType(t *testing.T, err error) {
	t.Helper()
	var te *ToolError
	if !errors.As(err, &te) || te.Code != CodeInvalidInput || te.Pointer != "/target_type" {
		t.Fatalf("err = %v; want invalid_input at /target_type", err)
	}
}

func TestReviewTargetOfDispatch(t *testing.T) {
	for _, tc := range []struct {
		targetType string
		want       any
	}{
		{targetExperiment, experimentTarget{}},
		{targetReflection, reflectionTarget{}},
	} {
		got, err := reviewTargetOf(tc.targetType)
		if err != nil || reflect.TypeOf(got) != reflect.TypeOf(tc.want) {
			t.Fatalf("reviewTargetOf(%q) = %#v, %v; want %#v", tc.targetType, got, err, tc.want)
		}
		if typ, _ := got.ref(); typ != tc.targetType {
			t.Fatalf("reviewTargetOf(%q).ref type = %q", tc.targetType, typ)
		}
	}
	for _, bad := range []string{"", "Experiment", "claim"} {
		got, err := reviewTargetOf(bad)
		if got != nil {
			t.Fatalf("reviewTargetOf(%q) = %#v; want none", bad, got)
		}
		wantBadTargetType(t, err)
	}
}

// TestReviewPathsRefuseUnknownTargetType: every path that dispatches on a
// stored target type refuses an unknown one with the typed error before
// it reads anything (the Service has no database, Temporal or blobs).
func TestReviewPathsRefuseUnknownTargetType(t *testing.T) {
	ctx := context.Background()
	s := &Service{}
	req := models.ReviewRequest{ID: "rr_1", TargetType: "claim", TargetID: "cl_1", Kind: kindDesign}
	wantBadTargetType(t, routeFor(req, Verdict{Verdict: gateengine.VerdictPass}))
	_, err := s.recordVerdict(ctx, models.ReviewSession{ID: "rs_1"}, req, Verdict{Verdict: gateengine.VerdictPass})
	wantBadTargetType(t, err)
	_, err = s.openSession(ctx, req, platform.Principal{CredentialID: "cred_1"}, "sess", "")
	wantBadTargetType(t, err)
	// A known type still routes: a bad verdict is refused by its table.
	req.TargetType = targetExperiment
	var te *ToolError
	if err := routeFor(req, Verdict{Verdict: "maybe"}); !errors.As(err, &te) || te.Pointer != "/verdict" {
		t.Fatalf("routeFor(experiment, maybe) = %v; want invalid at /verdict", err)
	}
}

func TestArtifactTargetDispatch(t *testing.T) {
	exp := experimentTarget{st: experimentAt(gates.Running)}
	ref := reflectionTarget{st: wf.ReflectionState{ReflectionID: "ref_1", Status: rg.Reflecting, Attempt: 3,
		Lenses: []rg.Lens{{ID: "lens_a"}}, Corpus: []string{"exp_1"}}}
	if exp.closed() != "" || ref.closed() != "" || exp.attempt() != 2 || ref.attempt() != 3 {
		t.Fatalf("open targets: %q %q attempts %d %d", exp.closed(), ref.closed(), exp.attempt(), ref.attempt())
	}
	if why := (experimentTarget{st: experimentAt(gates.Complete)}).closed(); why != "the experiment is complete; it takes no more artifacts" {
		t.Fatalf("closed experiment: %q", why)
	}
	if why := (reflectionTarget{st: wf.ReflectionState{Status: rg.Published}}).closed(); why != "the reflection is published; it takes no more artifacts" {
		t.Fatalf("closed reflection: %q", why)
	}
	// Limits: a gated role is capped and checked; another takes the default.
	for _, tc := range []struct {
		target reviewTarget
		role   string
		max    int64
		gated  bool
	}{
		{exp, "plan", gates.MaxGatedArtifactBytes, true},
		{exp, "notes", 1 << 20, false},
		{ref, string(rg.EvChangeSpec), maxReflectionArtifactBytes, true},
		{ref, "plan", 1 << 20, false},
	} {
		if max, gated := tc.target.artifactLimit(tc.role, 1<<20); max != tc.max || gated != tc.gated {
			t.Fatalf("%T.artifactLimit(%s) = %d, %v; want %d, %v", tc.target, tc.role, max, gated, tc.max, tc.gated)
		}
	}
	// Lens ids belong to a reflection's lens docs only.
	if err := exp.accepts(artifactArgs{Role: "plan", LensID: "lens_a"}); err != nil {
		t.Fatalf("experiment accepts: %v", err)
	}
	if err := ref.accepts(artifactArgs{Role: string(rg.EvLensDocs), LensID: "lens_a"}); err != nil {
		t.Fatalf("roster lens refused: %v", err)
	}
	var te *ToolError
	for _, in := range []artifactArgs{{Role: string(rg.EvLensDocs), LensID: "lens_z"}, {Role: "plan", LensID: "lens_a"}} {
		if err := ref.accepts(in); !errors.As(err, &te) || te.Code != CodeInvalidInput || te.Pointer != "/lens_id" {
			t.Fatalf("reflection accepts %+v = %v; want invalid at /lens_id", in, err)
		}
	}
	// What the workflow is told and what the answer shows.
	a := models.Artifact{ID: "art_1", LensID: "lens_a"}
	landing := wf.ArtifactRef{ArtifactID: "art_1", Valid: true}
	if got, ok := exp.landed(a, landing).(wf.ArtifactRef); !ok || !reflect.DeepEqual(got, landing) {
		t.Fatalf("experiment landed %#v", exp.landed(a, landing))
	}
	if got, ok := ref.landed(a, landing).(wf.ReflectionArtifact); !ok || got.LensID != "lens_a" || got.ArtifactID != "art_1" {
		t.Fatalf("reflection landed %#v", ref.landed(a, landing))
	}
	if exp.lens(a) != nil {
		t.Fatal("an experiment's artifact answer names a lens")
	}
	if l := ref.lens(models.Artifact{}); l == nil || *l != "" {
		t.Fatal("a reflection's artifact answer always names its lens, empty or not")
	}
	// A change spec's problems come from the reflection table; an
	// experiment's plan from the experiment table.
	if p := exp.checkArtifact(context.Background(), nil, models.Artifact{Role: "plan"}, []byte("x")); len(p) == 0 {
		t.Fatal("a one-byte plan passed the experiment's check")
	}
	if p := ref.checkArtifact(context.Background(), nil, models.Artifact{Role: string(rg.EvChangeSpec)}, []byte("not json")); len(p) == 0 {
		t.Fatal("a change spec that is not JSON passed the reflection's check")
	}
}
