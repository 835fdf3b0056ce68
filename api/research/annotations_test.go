package research

import (
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse/gatehouse/internal/config"
)

// fullCatalogue is every research tool, each feature on.
func fullCatalogue(t *testing.T) *Service {
	t.Helper()
	cat, err := NewCatalogue(config.Features{Storage: true, Sandboxes: true, Tracking: true})
	if err != nil {
		t.Fatal(err)
	}
	return &Service{Cat: cat, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func TestAnnotations_TableCoversTheCatalogueAndAgreesWithReadOnly(t *testing.T) {
	t.Parallel()
	s := fullCatalogue(t)
	inCatalogue := map[string]bool{}
	for i := range s.Cat.Tools {
		tool := &s.Cat.Tools[i]
		inCatalogue[tool.Name] = true
		h, ok := researchHints[tool.Name]
		if !ok {
			t.Errorf("%s has no row in researchHints", tool.Name)
			continue
		}
		if tool.ReadOnly && (h.Destructive || !h.Idempotent) {
			t.Errorf("%s is read-only but hinted destructive=%v idempotent=%v", tool.Name, h.Destructive, h.Idempotent)
		}
	}
	for name := range researchHints {
		if !inCatalogue[name] {
			t.Errorf("researchHints names %s, which the catalogue lacks", name)
		}
	}
	if len(s.Cat.Tools) != 54 {
		t.Errorf("the catalogue has %d tools; the contract names 54", len(s.Cat.Tools))
	}
}

// The hints reach clients: tools/list carries all four for every tool.
func TestAnnotations_ToolsListCarriesEveryHint(t *testing.T) {
	t.Parallel()
	s := fullCatalogue(t)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewMCPServerNamed(s, "test", NamingDotted).Connect(t.Context(), st, nil)
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
	cases := map[string]toolHints{
		"sandbox.release":  {Destructive: true, Idempotent: true, OpenWorld: true},
		"claim.create":     {},
		"candidate.submit": {Idempotent: true},
		"feed.list":        {Idempotent: true},
		"mlflow.context":   {Idempotent: true, OpenWorld: true},
	}
	seen := 0
	for _, tl := range res.Tools {
		a := tl.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s lists without destructiveHint/openWorldHint: %+v", tl.Name, a)
			continue
		}
		want, ok := cases[tl.Name]
		if !ok {
			continue
		}
		seen++
		if got := (toolHints{*a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}); got != want {
			t.Errorf("%s: hints %+v, want %+v", tl.Name, got, want)
		}
	}
	if seen != len(cases) {
		t.Fatalf("checked %d of %d named tools", seen, len(cases))
	}
}
