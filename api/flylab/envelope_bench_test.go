package flylab

import (
	"encoding/json"
	"testing"

	"github.com/gatehouse/gatehouse/api/rest"
	science "github.com/gatehouse/gatehouse/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// BenchmarkEnvelope_FindResult measures what the api does with a stored
// find_fly_circuits result (about 45 KB) after the Update answers: decode
// it, decorate it, build the envelope with its provenance manifest and
// encode the answer.
//
//	go test -run '^$' -bench Envelope -benchmem ./api/flylab/
func BenchmarkEnvelope_FindResult(b *testing.B) {
	s, err := NewService(rest.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	res, err := science.SearchCircuits(science.SearchQuery{Query: "backward walking"})
	if err != nil {
		b.Fatal(err)
	}
	stored, _ := json.Marshal(res)
	st := wf.SessionState{SessionID: "session_bench", Revision: 5}
	b.SetBytes(int64(len(stored)))
	for b.Loop() {
		var data map[string]any
		if err := json.Unmarshal(stored, &data); err != nil {
			b.Fatal(err)
		}
		s.decorate(wf.ToolFind, st, data)
		env := s.success(wf.ToolFind, st, wf.ToolOutcome{CreatedArtifactIDs: []string{}}, "", data)
		if env["ok"] != true {
			b.Fatalf("envelope failed: %v", env["error"])
		}
		if _, err := json.Marshal(env); err != nil {
			b.Fatal(err)
		}
	}
}
