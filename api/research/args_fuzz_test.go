package research

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/models/platform"
)

// FuzzResearchToolArgsValidation drives Invoke's argument layer (schema
// validation, then decoding) for every research tool of a deployment with
// every feature on, including the Temporal-backed ones
// (workflow.status_and_next, experiment.transition, review.*, sandbox.*):
// each handler is replaced by a stub, so no Temporal server or database is
// involved. No input panics; a refused input answers a typed invalid_input
// from the schema or the decode, before the handler body, which is where
// anything is stored.
func FuzzResearchToolArgsValidation(f *testing.F) {
	for i, s := range []string{`{"project_id":"p"}`, `{"project_id":"p","experiment_id":"e"}`,
		`{"project_id":"p","experiment_id":"e","transition":"start"}`, `{"project_id":"p","name":"exp-1","status":"planned"}`,
		`{"project_id":"","experiment_id":"e"}`, `{"project_id":1e400}`, `{"project_id":"p","extra":true}`,
		`[`, `null`, ``, "\x00\xff", `{"project_id":"p","evidence":{"a":[[[[[[[[]]]]]]]]}}`} {
		f.Add(uint8(i), []byte(s))
	}
	cat, err := NewCatalogue(config.Features{Storage: true, Sandboxes: true, Tracking: true})
	if err != nil {
		f.Fatal(err)
	}
	// reached records which stub ran and whether its decode refused: a
	// refusal from a handler that decoded cleanly would mean the handler,
	// not the argument layer, turned the input away.
	reached := map[string]error{}
	for i := range cat.Tools {
		cat.Tools[i].Handler = func(_ context.Context, _ *Service, c *Call) (any, error) {
			var v map[string]any
			err := c.decode(&v)
			reached[c.Tool.Name] = err
			return v, err
		}
	}
	svc := &Service{Cat: cat, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	op := platform.Principal{Role: platform.RoleOperator, Name: "fuzz"}
	f.Fuzz(func(t *testing.T, tool uint8, body []byte) {
		name := cat.Tools[int(tool)%len(cat.Tools)].Name
		clear(reached)
		_, terr := svc.Invoke(context.Background(), op, name, json.RawMessage(body))
		decodeErr, ran := reached[name]
		switch {
		case terr == nil && !ran:
			t.Fatalf("%s(%q): accepted without reaching the handler", name, body)
		case terr == nil:
			return
		case terr.Code != "invalid_input" || terr.Message == "":
			t.Fatalf("%s(%q): untyped refusal %+v", name, body, terr)
		case ran && decodeErr == nil:
			t.Fatalf("%s(%q): refused after the arguments decoded", name, body)
		}
		if _, err := json.Marshal(terr); err != nil {
			t.Fatalf("%s(%q): tool error does not encode: %v", name, body, err)
		}
	})
}
