package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// writeHistory records a workflow's history as JSON under
// workflows/<dir>/<name>.json for the replay tests, when
// GATEHOUSE_RECORD_HISTORIES=1; otherwise it does nothing.
func writeHistory(t *testing.T, s *Stack, workflowID, dir, name string) {
	t.Helper()
	writeRunHistory(t, s, workflowID, "", dir, name)
}

// writeRunHistory is writeHistory for one run of the workflow ("": the
// latest), such as a run that continued as new.
func writeRunHistory(t *testing.T, s *Stack, workflowID, runID, dir, name string) {
	t.Helper()
	if os.Getenv("GATEHOUSE_RECORD_HISTORIES") != "1" {
		return
	}
	it := s.Client(t).GetWorkflowHistory(context.Background(), workflowID, runID, false, 0)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, ev)
	}
	raw, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("..", "..", "workflows", filepath.FromSlash(dir))
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, name+".json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}
