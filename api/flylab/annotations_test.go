package flylab

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse/gatehouse/api/rest"
)

func TestAnnotations_EveryFlyLabToolStatesEveryHint(t *testing.T) {
	t.Parallel()
	svc, err := NewService(rest.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if len(svc.Tools()) != len(flylabHints) {
		t.Fatalf("%d contract tools, %d rows in flylabHints", len(svc.Tools()), len(flylabHints))
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := svc.MCPServer().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "annotations-test"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		// Additive writes guarded by expected_state_revision or operation_id,
		// on the curated index and the in-process simulator.
		want := toolHints{Destructive: false, Idempotent: true, OpenWorld: false}
		a := tl.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s lists without destructiveHint/openWorldHint: %+v", tl.Name, a)
			continue
		}
		if got := (toolHints{*a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}); got != want {
			t.Errorf("%s: hints %+v, want %+v", tl.Name, got, want)
		}
		if readOnly, _ := svc.byName[tl.Name].Annotations["readOnlyHint"].(bool); a.ReadOnlyHint != readOnly {
			t.Errorf("%s: readOnlyHint %v, the contract says %v", tl.Name, a.ReadOnlyHint, readOnly)
		}
	}
}
