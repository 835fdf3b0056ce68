package flylab

import (
	"errors"
	"math"
	"testing"
)

func TestDesignProtocol_ReturnsContractErrorCodes(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(*DesignRequest)
		code   string
		detail string
	}{
		{"unknown circuit", func(r *DesignRequest) { r.TargetCircuitID = "circuit_nope" }, CodeNotFound, ""},
		{"catalog-only circuit", func(r *DesignRequest) { r.TargetCircuitID = "circuit_dnp09_freeze_flee" }, CodeUnsupportedTarget, ""},
		{"unilateral giant fiber", func(r *DesignRequest) {
			r.TargetCircuitID, r.Laterality = "circuit_gf_short_escape", LateralityLeft
		}, CodeUnsupportedTarget, ""},
		{"unknown perturbation", func(r *DesignRequest) { r.Perturbation = "excite" }, CodeInvalidInput, "perturbation"},
		{"level above one", func(r *DesignRequest) { r.ActivationLevel = 1.5 }, CodeInvalidInput, "activation_level"},
		{"level NaN", func(r *DesignRequest) { r.ActivationLevel = math.NaN() }, CodeInvalidInput, "activation_level"},
		{"no sham", func(r *DesignRequest) { r.IncludeShamControl = false }, CodeInvalidInput, "include_baseline"},
		{"too many replicates", func(r *DesignRequest) { r.Replicates = 21 }, CodeInvalidInput, "replicates"},
		{"negative seed", func(r *DesignRequest) { r.Seed = -1 }, CodeInvalidInput, "seed"},
		{"blank hypothesis", func(r *DesignRequest) { r.HypothesisID = " " }, CodeInvalidInput, "hypothesis_id"},
		{"window past trial end", func(r *DesignRequest) { r.OnsetMs, r.DurationMs, r.TrialDurationMs = 900, 200, 1000 }, CodeInvalidTiming, ""},
		{"too short stimulus", func(r *DesignRequest) { r.DurationMs = 10 }, CodeInvalidTiming, ""},
		{"too long trial", func(r *DesignRequest) { r.TrialDurationMs = 20000 }, CodeInvalidTiming, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := DesignRequest{HypothesisID: "hyp", TargetCircuitID: "circuit_mdn_backward", Perturbation: PerturbationActivate,
				Laterality: LateralityBilateral, ActivationLevel: 1, OnsetMs: 100, DurationMs: 500, TrialDurationMs: 2000,
				Replicates: 2, IncludeBaseline: true, IncludeShamControl: true, Seed: 1}
			tt.edit(&req)
			_, err := DesignProtocol(req)
			var fe *Error
			if !errors.As(err, &fe) || fe.Code != tt.code {
				t.Fatalf("got %v, want %s", err, tt.code)
			}
			if tt.detail != "" && fe.Details["field"] != tt.detail {
				t.Errorf("details %v, want field %s", fe.Details, tt.detail)
			}
		})
	}
}

func TestDesignProtocol_BilateralDesignAddsOneSidedArms(t *testing.T) {
	d := designFor(t, "circuit_mdn_backward", PerturbationActivate, LateralityBilateral, 1)
	var ids []string
	for _, c := range d.Experiment.Conditions {
		ids = append(ids, c.ID)
	}
	want := []string{ConditionBaselineID, ConditionShamID, "condition_bilateral", "condition_left", "condition_right"}
	if len(ids) != len(want) {
		t.Fatalf("conditions %v, want %v", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("conditions %v, want %v", ids, want)
		}
	}
	sham := d.Experiment.DriveDerivations[1]
	for _, ch := range sham.Channels {
		if ch.Effective != 0 {
			t.Errorf("sham has drive %+v", ch)
		}
	}
	if gf := designFor(t, "circuit_gf_short_escape", PerturbationActivate, LateralityBilateral, 1); len(gf.Experiment.Conditions) != 3 {
		t.Errorf("bilateral-only circuit got %d arms", len(gf.Experiment.Conditions))
	}
}

func TestAnalyze_RejectsPanelsOtherThanTheMotorMaps(t *testing.T) {
	b := simulateDesign(t, goldenDesign(t, "circuit_mdn_backward"))
	panel := b.MotorMap.RecommendedMetrics
	tests := map[string]struct {
		metrics []string
		code    string
	}{
		"partial panel":      {panel[:4], CodeInvalidInput},
		"repeated metric":    {append(append([]string{}, panel[:4]...), panel[0]), CodeInvalidInput},
		"unknown metric":     {append(append([]string{}, panel[:4]...), "wing_beat_hz"), CodeInvalidInput},
		"mixed panel":        {append(append([]string{}, panel[:4]...), MetricWingRecruitment), CodeMetricUnavailable},
		"reordered is valid": {[]string{panel[4], panel[3], panel[2], panel[1], panel[0]}, ""},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Analyze(b, tt.metrics)
			if got := errorCode(err); got != tt.code {
				t.Errorf("got %v, want %q", err, tt.code)
			}
		})
	}
	incomplete := b
	incomplete.ConditionRuns = append([]ConditionRun{}, b.ConditionRuns...)
	incomplete.ConditionRuns[0].Replicates = incomplete.ConditionRuns[0].Replicates[:1]
	if _, err := Analyze(incomplete, panel); errorCode(err) != CodeIncompleteBatch {
		t.Errorf("missing run: got %v, want INCOMPLETE_BATCH", err)
	}
}

func TestCompare_RanksAndRefusesIncomparableAnalyses(t *testing.T) {
	mdn := analyzeBatch(t, simulateDesign(t, goldenDesign(t, "circuit_mdn_backward"))).Analysis
	gf := analyzeBatch(t, simulateDesign(t, goldenDesign(t, "circuit_gf_short_escape"))).Analysis
	loom := analyzeBatch(t, simulateDesign(t, goldenDesign(t, "circuit_lc_loom_takeoff"))).Analysis

	res, err := Compare([]Analysis{mdn}, MetricBackwardDistance, "maximize")
	if err != nil {
		t.Fatal(err)
	}
	top := res.Comparison.RankedConditions[0]
	if top.ConditionID != "condition_bilateral" || res.ExecutionAuthorized || res.Comparison.Proposal.Executed {
		t.Errorf("top %+v, authorized %v", top, res.ExecutionAuthorized)
	}
	if p := res.Comparison.Proposal; len(p.ActivationLevels) == 0 || p.ReplicateBudget > 20 {
		t.Errorf("unbounded proposal %+v", p)
	}
	minimized, _ := Compare([]Analysis{mdn}, MetricBackwardDistance, "minimize")
	if minimized.Comparison.RankedConditions[0].ConditionID == "condition_bilateral" {
		t.Error("minimize ranked the largest value first")
	}
	if _, err := Compare([]Analysis{gf, loom}, MetricShortModeEscape, "maximize"); err != nil {
		t.Errorf("same-panel analyses refused: %v", err)
	}
	if _, err := Compare([]Analysis{mdn, gf}, MetricResponseLatency, "minimize"); errorCode(err) != CodeIncomparableAnalyses {
		t.Errorf("different panels: got %v, want INCOMPARABLE_ANALYSES", err)
	}
	if _, err := Compare([]Analysis{mdn}, MetricWingRecruitment, "maximize"); errorCode(err) != CodeMetricUnavailable {
		t.Errorf("objective outside panel: got %v, want METRIC_UNAVAILABLE", err)
	}
	if _, err := Compare([]Analysis{mdn, mdn}, MetricBackwardDistance, "maximize"); errorCode(err) != CodeInvalidInput {
		t.Errorf("duplicate analysis: got %v, want INVALID_INPUT", err)
	}
	if _, err := Compare([]Analysis{mdn}, MetricBackwardDistance, "target"); errorCode(err) != CodeInvalidInput {
		t.Errorf("bad objective: got %v, want INVALID_INPUT", err)
	}
}

func TestSimulate_ReportsProgressAndStopsWhenAsked(t *testing.T) {
	d := goldenDesign(t, "circuit_dn_steering")
	var calls [][2]int
	_, err := Simulate(d.Experiment.Protocol, d.SeedManifest, func(done, total int) error {
		calls = append(calls, [2]int{done, total})
		return nil
	})
	if err != nil || len(calls) != 10 || calls[9] != [2]int{10, 10} {
		t.Fatalf("progress calls %v, err %v", calls, err)
	}
	stop := errors.New("cancelled")
	if _, err := Simulate(d.Experiment.Protocol, d.SeedManifest, func(done, _ int) error {
		if done == 3 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) {
		t.Errorf("got %v, want the callback's error", err)
	}
}
