package flylab

import (
	"context"
	"encoding/json"
	"testing"

	"gorm.io/gorm"

	science "github.com/gatehouse/gatehouse/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

func simulated(t *testing.T, circuit string) science.Batch {
	t.Helper()
	d, err := science.DesignProtocol(science.DesignRequest{HypothesisID: "hyp_t", TargetCircuitID: circuit, Perturbation: "activate",
		Laterality: "bilateral", ActivationLevel: 0.8, OnsetMs: 200, DurationMs: 500, TrialDurationMs: 1500, Replicates: 1,
		IncludeBaseline: true, IncludeShamControl: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := science.Simulate(d.Experiment.Protocol, d.SeedManifest, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func storeBatch(t *testing.T, db *gorm.DB, b science.Batch) {
	t.Helper()
	body, _ := json.Marshal(b)
	if err := models.CreateOnce(context.Background(), db, &models.Batch{ID: b.ID, SessionID: "session_t", ExperimentID: b.ExperimentID,
		OperationKey: "op/" + b.ID, RunContentHash: b.RunContentHash, Body: string(body)}); err != nil {
		t.Fatal(err)
	}
}

func TestAnalyze_IncompleteBatch(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		b := simulated(t, "circuit_mdn_backward")
		b.ConditionRuns[1].Replicates = nil
		b.ConditionRuns[1].RunIDs = nil
		storeBatch(t, db, b)
		a := &Activities{DB: db}
		args, _ := json.Marshal(map[string]any{"batch_id": b.ID, "metrics": b.MotorMap.RecommendedMetrics})
		eff, err := a.Analyze(context.Background(), wf.ToolCall{SessionID: "session_t", Tool: wf.ToolAnalyze, Args: args, ResultKey: "k",
			Session: wf.SessionState{Batch: &wf.BatchRef{ID: b.ID}}})
		if err != nil || eff.Failure == nil || eff.Failure.Code != science.CodeIncompleteBatch {
			t.Fatalf("err=%v effect=%+v", err, eff.Failure)
		}
		var n int64
		db.Model(&models.Analysis{}).Count(&n)
		if n != 0 {
			t.Fatalf("a failed analysis wrote %d rows", n)
		}
	})
}

func TestCompare_IncomparableAnalyses(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		a := &Activities{DB: db}
		var st wf.SessionState
		var ids []string
		for _, c := range []string{"circuit_mdn_backward", "circuit_gf_short_escape"} {
			b := simulated(t, c)
			res, err := science.Analyze(b, b.MotorMap.RecommendedMetrics)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := json.Marshal(res.Analysis)
			if err := models.CreateOnce(context.Background(), db, &models.Analysis{ID: res.Analysis.ID, SessionID: "session_t",
				BatchID: b.ID, Body: string(body)}); err != nil {
				t.Fatal(err)
			}
			st.Analyses = append(st.Analyses, wf.AnalysisRef{ID: res.Analysis.ID, BatchID: b.ID})
			ids = append(ids, res.Analysis.ID)
		}
		args, _ := json.Marshal(map[string]any{"analysis_ids": ids, "objective_metric": "response_latency_ms", "objective": "minimize"})
		eff, err := a.Compare(context.Background(), wf.ToolCall{SessionID: "session_t", Tool: wf.ToolCompare, Args: args, ResultKey: "k", Session: st})
		if err != nil || eff.Failure == nil || eff.Failure.Code != science.CodeIncomparableAnalyses {
			t.Fatalf("err=%v effect=%+v", err, eff.Failure)
		}
	})
}

func TestSave_IncompleteProvenanceWhenComparedAnalysisMissing(t *testing.T) {
	st := wf.SessionState{Experiment: &wf.ExperimentRef{ID: "exp", HypothesisID: "hyp"}, Batch: &wf.BatchRef{ID: "b"},
		Analyses: []wf.AnalysisRef{{ID: "a1"}, {ID: "a2"}}, Comparison: &wf.ComparisonRef{ID: "c", AnalysisIDs: []string{"a1", "a2"}}}
	in := saveArgs{HypothesisID: "hyp", ExperimentID: "exp", BatchIDs: []string{"b"}, AnalysisIDs: []string{"a1"}, ComparisonID: "c"}
	if f := checkLineageRefs(st, in); f == nil || f.Code != science.CodeIncompleteProvenance {
		t.Fatalf("got %+v", f)
	}
	in.AnalysisIDs = []string{"a1", "a2"}
	if f := checkLineageRefs(st, in); f != nil {
		t.Fatalf("complete lineage refused: %+v", f)
	}
	in.ExperimentID = "other"
	if f := checkLineageRefs(st, in); f == nil || f.Code != science.CodeNotFound {
		t.Fatalf("foreign experiment: %+v", f)
	}
}
