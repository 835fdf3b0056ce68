package research

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/models/platform"
)

func TestCatalogue_CountsForEveryFlagCombination(t *testing.T) {
	cases := []struct {
		f              config.Features
		public, hidden int
	}{
		{config.Features{Storage: true, Sandboxes: true}, 41, 11},
		// Storage off removes 6 more public tools, as the contract says:
		// its family's four, sandbox.pull_outputs and experiment.exhibit,
		// which only object storage makes work.
		{config.Features{Storage: false, Sandboxes: true}, 35, 9},
		{config.Features{Storage: true, Sandboxes: true, Tracking: true}, 43, 11},
		{config.Features{Storage: false, Sandboxes: true, Tracking: true}, 37, 9},
		// Sandboxes off removes the whole sandbox family (sandbox.health included).
		{config.Features{Storage: true, Sandboxes: false}, 31, 10},
		{config.Features{Storage: false, Sandboxes: false, Tracking: true}, 28, 8},
	}
	for _, c := range cases {
		cat, err := NewCatalogue(c.f)
		if err != nil {
			t.Fatal(err)
		}
		if p, h := cat.Counts(); p != c.public || h != c.hidden {
			t.Errorf("%+v: %d public + %d hidden, want %d + %d", c.f, p, h, c.public, c.hidden)
		}
	}
	storageOff, err := NewCatalogue(config.Features{Storage: false, Sandboxes: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"storage.submit", "storage.put_object", "sandbox.pull_outputs", "experiment.exhibit"} {
		if _, ok := storageOff.Lookup(gone); ok {
			t.Errorf("storage off still lists %s", gone)
		}
	}
	if n := len(AllTools()); n != 54 {
		t.Fatalf("%d tools registered, want 54", n)
	}
}

func TestCatalogue_AliasModeListsUnderscoreNames(t *testing.T) {
	cat, err := NewCatalogue(config.Features{Storage: true, Sandboxes: true, UnderscoreAliases: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Lookup("workflow_status_and_next"); !ok {
		t.Fatal("alias not found")
	}
	if got := cat.ListedName(&cat.Tools[0]); got != AliasOf(cat.Tools[0].Name) {
		t.Fatalf("listed %s", got)
	}
}

func newTestService(t *testing.T) *Service {
	cat, err := NewCatalogue(config.Features{Storage: true, Sandboxes: true})
	if err != nil {
		t.Fatal(err)
	}
	return &Service{Cat: cat, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func TestInvoke_HiddenToolsRefuseAgentKeys(t *testing.T) {
	s := newTestService(t)
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	_, terr := s.Invoke(context.Background(), agent, "project.list", nil)
	if terr == nil || terr.Code != "forbidden" || terr.Reason != "tool_visibility_forbidden" {
		t.Fatalf("got %+v", terr)
	}
}

func TestInvoke_BadInputPerFamilyNamesTheField(t *testing.T) {
	s := newTestService(t)
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	cases := map[string]struct{ args, pointer string }{
		"workflow.status_and_next": {`{}`, ""},
		"project":                  {`{"action":"explode"}`, "/action"},
		"experiment.create":        {`{"project_id":"p","name":"A Bad Name!"}`, "/name"},
		"experiment.transition":    {`{"project_id":"p","experiment_id":"e","transition":"fly"}`, "/transition"},
		"artifact.submit":          {`{"project_id":"p","target_type":"experiment","target_id":"e","role":"Plan!","path":"x"}`, "/role"},
		"review.submit":            {`{"review_session_id":"s","verdict":"maybe","synopsis":"x"}`, "/verdict"},
		"claim.create":             {`{"project_id":"p","statement":"s","confidence":"sure"}`, "/confidence"},
		"candidate.promote":        {`{"project_id":"p","candidate_id":"c","expected_champion_id":"","reason":"short"}`, "/reason"},
		"storage.object":           {`{"project_id":"p","object_id":"o","action":"burn"}`, "/action"},
		"reflection.transition":    {`{"project_id":"p","reflection_id":"r","transition":"skip"}`, "/transition"},
	}
	for name, c := range cases {
		_, terr := s.Invoke(context.Background(), agent, name, []byte(c.args))
		if terr == nil || terr.Code != "invalid_input" {
			t.Errorf("%s: got %+v", name, terr)
			continue
		}
		if c.pointer != "" && terr.Pointer != c.pointer {
			t.Errorf("%s: pointer %q, want %q", name, terr.Pointer, c.pointer)
		}
	}
	if _, terr := s.Invoke(context.Background(), agent, "experiment.create", []byte(`not json`)); terr == nil || terr.Code != "invalid_input" {
		t.Errorf("malformed JSON: %+v", terr)
	}
}

// Every family is built: a catalogue refuses a tool without a handler,
// so every registered tool has one.
func TestCatalogue_EveryToolHasAHandler(t *testing.T) {
	for _, tool := range AllTools() {
		if tool.Handler == nil {
			t.Errorf("%s has no handler", tool.Name)
		}
	}
}

// TestCatalogue_StorageFamilyIsFourPublicAndTwoInternal pins the storage
// family itself; with sandbox.pull_outputs and experiment.exhibit (other
// families' tools that need storage) its four public tools are the six
// the contract's "turning storage off removes 6 more" counts.
func TestCatalogue_StorageFamilyIsFourPublicAndTwoInternal(t *testing.T) {
	want := map[string]bool{"storage.submit": false, "storage.fetch": false, "storage.find": false, "storage.object": false,
		"storage.put_object": true, "storage.complete_upload": true}
	got := map[string]bool{}
	for _, tool := range AllTools() {
		if tool.Feature == FeatureStorage {
			got[tool.Name] = tool.Hidden
		}
	}
	if len(got) != len(want) {
		t.Fatalf("storage family %v, want %v", got, want)
	}
	for name, hidden := range want {
		if h, ok := got[name]; !ok || h != hidden {
			t.Errorf("%s: listed %v hidden %v, want hidden %v", name, ok, h, hidden)
		}
	}
}

// TestCatalogue_TheNextActionWordsAreTransitions proves an agent that
// sends the next_action it was given as the transition passes the schema,
// for experiments and reflections alike.
func TestCatalogue_TheNextActionWordsAreTransitions(t *testing.T) {
	s := newTestService(t)
	for name, args := range map[string]string{
		"experiment.transition": `{"project_id":"p","experiment_id":"e","transition":"abandon_experiment"}`,
		"reflection.transition": `{"project_id":"p","reflection_id":"r","transition":"abandon_reflection"}`,
	} {
		tool, ok := s.Cat.Lookup(name)
		if !ok {
			t.Fatalf("no tool %s", name)
		}
		if vs, err := tool.schema.ValidateJSON([]byte(args)); err != nil || len(vs) != 0 {
			t.Errorf("%s: %v %v, want the next_action word accepted", name, vs, err)
		}
	}
}
