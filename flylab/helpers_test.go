package flylab

import (
	"errors"
	"testing"
)

// designFor builds a default design for a circuit; overrides edit the request.
func designFor(t testing.TB, circuitID, perturbation, laterality string, level float64, overrides ...func(*DesignRequest)) Design {
	t.Helper()
	req := DesignRequest{HypothesisID: "hyp_test", TargetCircuitID: circuitID, Perturbation: perturbation,
		Laterality: laterality, ActivationLevel: level, OnsetMs: 1000, DurationMs: 1000, TrialDurationMs: 3000,
		Replicates: 5, IncludeBaseline: true, IncludeShamControl: true, Seed: 1234}
	for _, o := range overrides {
		o(&req)
	}
	d, err := DesignProtocol(req)
	if err != nil {
		t.Fatalf("DesignProtocol(%s): %v", circuitID, err)
	}
	return d
}

func simulateDesign(t testing.TB, d Design) Batch {
	t.Helper()
	b, err := Simulate(d.Experiment.Protocol, d.SeedManifest, nil)
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	return b
}

func analyzeBatch(t testing.TB, b Batch) AnalysisResult {
	t.Helper()
	res, err := Analyze(b, b.MotorMap.RecommendedMetrics)
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	return res
}

// conditionMean returns a condition's mean of a metric (NaN-free: fails on nil).
func conditionMean(t testing.TB, a Analysis, conditionID, metric string) float64 {
	t.Helper()
	for _, c := range a.Conditions {
		if c.ConditionID != conditionID {
			continue
		}
		for _, m := range c.Metrics {
			if m.Metric == metric {
				if m.Mean == nil {
					t.Fatalf("%s/%s has no mean", conditionID, metric)
				}
				return *m.Mean
			}
		}
	}
	t.Fatalf("no %s/%s in analysis", conditionID, metric)
	return 0
}

func errorCode(err error) string {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	return ""
}
