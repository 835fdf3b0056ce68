package flylab

import (
	"math"
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"
)

// randomDesign is a generated valid design request for testing/quick.
type randomDesign struct{ req DesignRequest }

// Generate draws a valid request for a random simulated circuit.
func (randomDesign) Generate(r *rand.Rand, _ int) reflect.Value {
	var circuits []Circuit
	for _, c := range Catalog().Circuits {
		if c.ModelCoverage == CoverageMappedReducedOrder {
			circuits = append(circuits, c)
		}
	}
	c := circuits[r.Intn(len(circuits))]
	m := c.MotorMap
	trial := 1000 + r.Intn(2001)
	duration := 50 + r.Intn(trial-50)
	req := DesignRequest{HypothesisID: "hyp_quick", TargetCircuitID: c.ID,
		Perturbation:    m.SupportedPerturbations[r.Intn(len(m.SupportedPerturbations))],
		Laterality:      m.SupportedLaterality[r.Intn(len(m.SupportedLaterality))],
		ActivationLevel: []float64{0, 1, r.Float64()}[r.Intn(3)],
		OnsetMs:         r.Intn(min(trial-duration, 5000) + 1), DurationMs: min(duration, 5000), TrialDurationMs: trial,
		Replicates: 1 + r.Intn(2), IncludeBaseline: true, IncludeShamControl: true, Seed: r.Int63n(math.MaxInt32)}
	return reflect.ValueOf(randomDesign{req})
}

func finite(values ...float64) bool {
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func TestSimulate_PropertyNoNaNAndMetricsInRange(t *testing.T) {
	ranges := map[string][2]float64{}
	for _, d := range MetricDefinitions() {
		ranges[d.ID] = d.Range
	}
	property := func(g randomDesign) bool {
		d, err := DesignProtocol(g.req)
		if err != nil {
			t.Logf("design %+v: %v", g.req, err)
			return false
		}
		b, err := Simulate(d.Experiment.Protocol, d.SeedManifest, nil)
		if err != nil {
			t.Logf("simulate: %v", err)
			return false
		}
		for _, cr := range b.ConditionRuns {
			for _, run := range cr.Replicates {
				tr := run.Trajectory
				for i := range tr.Len() {
					if !finite(tr.XMm[i], tr.YMm[i], tr.ZMm[i], tr.HeadingDeg[i]) || tr.ZMm[i] < 0 {
						t.Logf("non-finite or negative state at sample %d", i)
						return false
					}
					for _, l := range tr.Legs {
						if a := l.Activation[i]; !finite(a) || a < 0 || a > 1 {
							return false
						}
					}
				}
			}
		}
		res, err := Analyze(b, b.MotorMap.RecommendedMetrics)
		if err != nil {
			t.Logf("analyze: %v", err)
			return false
		}
		for _, run := range res.PerRunResults {
			for _, m := range run.Metrics {
				if m.Value == nil {
					continue
				}
				r := ranges[m.Metric]
				if !finite(*m.Value) || *m.Value < r[0] || *m.Value > r[1] {
					t.Logf("%s = %v outside %v for %+v", m.Metric, *m.Value, r, g.req)
					return false
				}
			}
		}
		return true
	}
	if err := quick.Check(property, &quick.Config{MaxCount: 40, Rand: rand.New(rand.NewSource(7))}); err != nil {
		t.Fatal(err)
	}
}

func FuzzCanonicalJSON_OutputIsValidJSONAndStable(f *testing.F) {
	f.Add("héllo\n\"x\"", 1.5, int64(3))
	f.Fuzz(func(t *testing.T, s string, x float64, i int64) {
		v := map[string]any{"s": s, "x": x, "i": i % (1 << 53)}
		out, err := CanonicalJSON(v)
		if err != nil {
			return // NaN, Inf or invalid UTF-8: rejected as documented
		}
		var back map[string]any
		if err := jsonUnmarshal(out, &back); err != nil {
			t.Fatalf("canonical output is not JSON: %s", out)
		}
		again, _ := CanonicalJSON(back)
		if string(again) != string(out) {
			t.Fatalf("not idempotent: %s vs %s", out, again)
		}
	})
}
