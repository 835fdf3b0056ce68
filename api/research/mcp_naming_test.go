package research

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse/gatehouse/internal/config"
)

// listedNames connects an in-memory client to srv and returns tools/list.
func listedNames(t *testing.T, srv *mcp.Server) []string {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "naming-test"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(res.Tools))
	for i, tl := range res.Tools {
		names[i] = tl.Name
	}
	return names
}

// Each connection lists one form of every name: dotted, or underscore
// when it asks (or the deployment defaults to underscore), never both.
func TestMCPServerNamed_ListsOneFormPerConnection(t *testing.T) {
	dotted := newTestService(t)
	aliased, err := NewCatalogue(config.Features{Storage: true, Sandboxes: true, UnderscoreAliases: true})
	if err != nil {
		t.Fatal(err)
	}
	underscoreByDefault := &Service{Cat: aliased, Log: dotted.Log}
	cases := []struct {
		name       string
		svc        *Service
		naming     Naming
		underscore bool
	}{
		{"default deployment, default naming", dotted, NamingDefault, false},
		{"default deployment, ?names=underscore", dotted, NamingUnderscore, true},
		{"alias deployment, default naming", underscoreByDefault, NamingDefault, true},
		{"alias deployment, ?names=dotted", underscoreByDefault, NamingDotted, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			names := listedNames(t, NewMCPServerNamed(tc.svc, "test", tc.naming))
			if len(names) != len(tc.svc.Cat.Tools) {
				t.Fatalf("%d tools listed, want %d", len(names), len(tc.svc.Cat.Tools))
			}
			joined := " " + strings.Join(names, " ") + " "
			has := func(n string) bool { return strings.Contains(joined, " "+n+" ") }
			if tc.underscore != has("workflow_status_and_next") || tc.underscore == has("workflow.status_and_next") {
				t.Fatalf("underscore=%v but listed %v", tc.underscore, names)
			}
			for _, n := range names {
				if tc.underscore && strings.Contains(n, ".") {
					t.Errorf("underscore connection lists dotted %s", n)
				}
			}
		})
	}
}

func TestParseNaming_RefusesUnknownForms(t *testing.T) {
	for v, want := range map[string]Naming{"": NamingDefault, "dotted": NamingDotted, "underscore": NamingUnderscore} {
		if got, err := ParseNaming(v); err != nil || got != want {
			t.Errorf("ParseNaming(%q) = %q, %v", v, got, err)
		}
	}
	if _, err := ParseNaming("camel"); !errors.Is(err, ErrUnknownNaming) {
		t.Fatalf("ParseNaming(camel) = %v, want ErrUnknownNaming", err)
	}
}
