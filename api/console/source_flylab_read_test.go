package console

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/converter"

	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	flywf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// stateTemporal answers session-state queries from a map.
type stateTemporal struct{ states map[string]flywf.SessionState }

func (s stateTemporal) SignalWorkflow(context.Context, string, string, string, any) error {
	return errors.New("not used")
}

func (s stateTemporal) QueryWorkflow(_ context.Context, workflowID, _, _ string, _ ...any) (converter.EncodedValue, error) {
	st, ok := s.states[workflowID]
	if !ok {
		return nil, errors.New("workflow not found")
	}
	raw, _ := json.Marshal(st)
	return jsonValue(raw), nil
}

type jsonValue []byte

func (j jsonValue) HasValue() bool        { return len(j) > 0 }
func (j jsonValue) Get(ptr any) error     { return json.Unmarshal(j, ptr) }
func (j jsonValue) String() string        { return string(j) }
func (j jsonValue) Bytes() ([]byte, bool) { return j, true }

func TestFlyLabSource_SessionsShowTheirLineage(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	now := time.Now()
	for _, s := range []flymodels.Session{{ID: "session_a", OwnerCredentialID: "c1", OwnerName: "agent-a", CreatedAt: now},
		{ID: "session_b", OwnerCredentialID: "c2", OwnerName: "agent-b", CreatedAt: now.Add(-time.Minute)}} {
		if err := db.Create(&s).Error; err != nil {
			t.Fatal(err)
		}
	}
	tc := stateTemporal{states: map[string]flywf.SessionState{"flylab-session/session_a": {SessionID: "session_a", Revision: 7,
		Hypothesis: &flywf.HypothesisRef{ID: "hyp_1", Perturbation: "activate", Behavior: "backward_walking"},
		Experiment: &flywf.ExperimentRef{ID: "exp_1", Status: flywf.ExperimentApproved, ProtocolHash: hashA},
		Bundle:     &flywf.BundleRef{ID: "bundle_1", ManifestHash: hashB}}}}
	page, err := newFlyLabSource(db, tc, nil).FlyLabSessions(context.Background(), SessionFilter{}, Page{})
	got := page.Items
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "session_a" || got[0].StateRevision != 7 || got[0].Status != "experiment approved" {
		t.Fatalf("sessions: %+v", got)
	}
	ids := map[string]string{}
	for _, a := range got[0].Artifacts {
		ids[a.ID] = a.Type
	}
	if ids["hyp_1"] != "hypothesis" || ids["exp_1"] != "experiment" || ids["bundle_1"] != "evidence_bundle" {
		t.Fatalf("manifest: %+v", got[0].Artifacts)
	}
	if got[1].Status != "state unavailable" || len(got[1].Artifacts) != 0 {
		t.Fatalf("a session whose workflow cannot be asked: %+v", got[1])
	}
}

func TestFlyLabSource_EvidenceReadsTheStoredExport(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	export := map[string]any{"schema": "flylab.evidence-export", "schemaVersion": 3,
		"bundle": map[string]any{"id": "bundle_1", "title": "MDN", "experimentId": "exp_1", "pageSessionId": "session_a",
			"manifestHash": hashB, "createdAt": "2026-11-29T12:00:00Z"},
		"payload": map[string]any{
			"batch": map[string]any{"conditionRuns": []any{
				map[string]any{"conditionId": "condition_baseline", "replicates": []any{
					map[string]any{"id": "run_1", "seed": 11, "trajectory": map[string]any{"xMm": []float64{0, 1}, "yMm": []float64{0, 0.5}}},
					map[string]any{"id": "run_2", "seed": 12, "trajectory": map[string]any{"xMm": []float64{0, 2}, "yMm": []float64{0, 1}}}}},
				map[string]any{"conditionId": "condition_bilateral", "replicates": []any{
					map[string]any{"id": "run_3", "seed": 11, "trajectory": map[string]any{"xMm": []float64{0, -3}, "yMm": []float64{0, 0}}}}}}},
			"analyses": []any{map[string]any{"metrics": []string{"backward_distance_mm"}, "conditions": []any{
				map[string]any{"conditionId": "condition_baseline", "metrics": []any{map[string]any{"metric": "backward_distance_mm", "unit": "mm", "mean": 0.1}}},
				map[string]any{"conditionId": "condition_bilateral", "metrics": []any{map[string]any{"metric": "backward_distance_mm", "unit": "mm", "mean": 5.9}}}}}}},
	}
	raw, _ := json.Marshal(export)
	if err := flymodels.CreateOnce(context.Background(), db, &flymodels.EvidenceBundle{ID: "bundle_1", SessionID: "session_a",
		OperationKey: "op", ManifestHash: hashB, Export: string(raw), CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	src := newFlyLabSource(db, nil, nil)
	ctx := context.Background()
	list, err := src.EvidenceBundles(ctx)
	if err != nil || len(list) != 1 || list[0].Title != "MDN" || list[0].ExperimentID != "exp_1" {
		t.Fatalf("bundles: %+v %v", list, err)
	}
	b, err := src.EvidenceBundle(ctx, "bundle_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Runs) != 3 || b.Runs[2].Condition != "condition_bilateral" || len(b.Runs[1].Points) != 2 || b.Runs[1].Points[1] != (Point{2, 1}) {
		t.Fatalf("runs: %+v", b.Runs)
	}
	if len(b.Metrics) != 1 || b.Metrics[0].Unit != "mm" || len(b.Metrics[0].Values) != 2 || b.Metrics[0].Values[1].Value != 5.9 {
		t.Fatalf("metrics: %+v", b.Metrics)
	}
	ex, err := src.EvidenceExport(ctx, "bundle_1")
	if err != nil || string(ex.Body) != string(raw) || ex.MediaType != flymodels.ExportMediaType {
		t.Fatalf("export: %v %s", err, ex.MediaType)
	}
	if _, err := src.EvidenceBundle(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown bundle: %v", err)
	}
}

// goneTemporal answers every session query as Temporal does once the
// workflow was purged after the namespace's retention.
type goneTemporal struct{ stateTemporal }

func (goneTemporal) QueryWorkflow(context.Context, string, string, string, ...any) (converter.EncodedValue, error) {
	return nil, serviceerror.NewNotFound("workflow execution not found")
}

// TestFlyLabSource_SessionsOutliveTheirWorkflows proves the sessions page
// shows a session's lineage from its stored snapshot once its workflow is
// gone, instead of "state unavailable".
func TestFlyLabSource_SessionsOutliveTheirWorkflows(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	ctx := context.Background()
	if err := db.Create(&flymodels.Session{ID: "session_a", OwnerCredentialID: "c1", OwnerName: "agent-a", CreatedAt: time.Now()}).Error; err != nil {
		t.Fatal(err)
	}
	st := flywf.SessionState{SessionID: "session_a", Revision: 11,
		Experiment: &flywf.ExperimentRef{ID: "exp_1", Status: flywf.ExperimentRan, ProtocolHash: hashA},
		Bundle:     &flywf.BundleRef{ID: "bundle_1", ManifestHash: hashB}}
	raw, _ := json.Marshal(st)
	if err := flymodels.SaveSnapshot(ctx, db, "session_a", st.Revision, raw); err != nil {
		t.Fatal(err)
	}
	page, err := newFlyLabSource(db, goneTemporal{}, nil).FlyLabSessions(ctx, SessionFilter{}, Page{})
	got := page.Items
	if err != nil || len(got) != 1 {
		t.Fatalf("sessions: %+v %v", got, err)
	}
	if got[0].StateRevision != 11 || got[0].Status != "experiment ran" || len(got[0].Artifacts) != 2 {
		t.Fatalf("a purged session shows %+v, want its stored lineage at revision 11", got[0])
	}
}
