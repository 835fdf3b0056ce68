package flylab

import (
	"math"
	"testing"
)

// TestSimulate_ScienceSanity checks the model reproduces the direction of
// each circuit's measured effect relative to sham.
func TestSimulate_ScienceSanity(t *testing.T) {
	type check func(t *testing.T, a Analysis, b Batch)
	tests := []struct {
		name, circuit, perturbation, laterality string
		check                                   check
	}{
		{"MDN activation drives backward walking", "circuit_mdn_backward", PerturbationActivate, LateralityBilateral,
			func(t *testing.T, a Analysis, _ Batch) {
				back, sham := conditionMean(t, a, "condition_bilateral", MetricBackwardDistance), conditionMean(t, a, ConditionShamID, MetricBackwardDistance)
				speed := conditionMean(t, a, "condition_bilateral", MetricSignedSpeed)
				if back < 3 || back < sham+3 || speed > -3 {
					t.Errorf("backward %.2f mm (sham %.2f), speed %.2f mm/s", back, sham, speed)
				}
			}},
		{"giant fiber activation gives fast short-mode escape", "circuit_gf_short_escape", PerturbationActivate, LateralityBilateral,
			func(t *testing.T, a Analysis, _ Batch) {
				p := conditionMean(t, a, "condition_bilateral", MetricShortModeEscape)
				latency := conditionMean(t, a, "condition_bilateral", MetricResponseLatency)
				if p < 0.9 || latency < 5 || latency > 60 || conditionMean(t, a, ConditionShamID, MetricShortModeEscape) != 0 {
					t.Errorf("short-mode probability %.2f, latency %.1f ms", p, latency)
				}
			}},
		{"P9 activation drives forward walking", "circuit_p9_bpn_forward", PerturbationActivate, LateralityBilateral,
			func(t *testing.T, a Analysis, _ Batch) {
				speed, sham := conditionMean(t, a, "condition_bilateral", MetricSignedSpeed), conditionMean(t, a, ConditionShamID, MetricSignedSpeed)
				if speed < 15 || speed < sham+10 {
					t.Errorf("speed %.2f mm/s vs sham %.2f", speed, sham)
				}
			}},
		{"left DNa02 activation turns left", "circuit_dn_steering", PerturbationActivate, LateralityLeft,
			func(t *testing.T, a Analysis, _ Batch) {
				turn, sham := conditionMean(t, a, "condition_left", MetricHeadingChange), conditionMean(t, a, ConditionShamID, MetricHeadingChange)
				if turn-sham < 45 {
					t.Errorf("heading change %.1f deg vs sham %.1f", turn, sham)
				}
			}},
		{"right DNa02 activation turns right", "circuit_dn_steering", PerturbationActivate, LateralityRight,
			func(t *testing.T, a Analysis, _ Batch) {
				turn, sham := conditionMean(t, a, "condition_right", MetricHeadingChange), conditionMean(t, a, ConditionShamID, MetricHeadingChange)
				if turn-sham > -45 {
					t.Errorf("heading change %.1f deg vs sham %.1f", turn, sham)
				}
			}},
		{"grooming activation recruits the forelegs", "circuit_antennal_grooming_abn", PerturbationActivate, LateralityBilateral,
			func(t *testing.T, a Analysis, b Batch) {
				fore, other := forelegShare(t, b, "condition_bilateral")
				if fore < 0.5 || other > 0.2 {
					t.Errorf("forelegs active %.2f of the window, other legs %.2f", fore, other)
				}
				if speed := conditionMean(t, a, "condition_bilateral", MetricSignedSpeed); speed > conditionMean(t, a, ConditionShamID, MetricSignedSpeed) {
					t.Errorf("grooming did not slow walking: %.2f", speed)
				}
			}},
		{"MDN silencing lowers barrier backing", "circuit_mdn_backward", PerturbationSilence, LateralityBilateral,
			silencingLowers("condition_bilateral", MetricBackwardDistance)},
		{"GF silencing removes short-mode escape", "circuit_gf_short_escape", PerturbationSilence, LateralityBilateral,
			silencingLowers("condition_bilateral", MetricShortModeEscape)},
		{"steering-DN silencing lowers turning", "circuit_dn_steering", PerturbationSilence, LateralityBilateral,
			silencingLowers("condition_bilateral", MetricHeadingChange)},
		{"BPN silencing lowers forward speed", "circuit_p9_bpn_forward", PerturbationSilence, LateralityBilateral,
			silencingLowers("condition_bilateral", MetricSignedSpeed)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := simulateDesign(t, designFor(t, tt.circuit, tt.perturbation, tt.laterality, 1))
			tt.check(t, analyzeBatch(t, b).Analysis, b)
		})
	}
}

func silencingLowers(conditionID, metric string) func(t *testing.T, a Analysis, _ Batch) {
	return func(t *testing.T, a Analysis, _ Batch) {
		silenced, sham := conditionMean(t, a, conditionID, metric), conditionMean(t, a, ConditionShamID, metric)
		if !(math.Abs(silenced) < 0.5*math.Abs(sham)) {
			t.Errorf("%s: silenced %.3f vs sham %.3f", metric, silenced, sham)
		}
	}
}

// forelegShare returns the mean fraction of the window the forelegs and the
// other legs are above the recruitment threshold.
func forelegShare(t *testing.T, b Batch, conditionID string) (fore, other float64) {
	t.Helper()
	p := b.Protocol
	for _, cr := range b.ConditionRuns {
		if cr.ConditionID != conditionID {
			continue
		}
		for _, run := range cr.Replicates {
			first, last := sampleWindow(run.Trajectory, p.OnsetMs, p.DurationMs)
			cols := legColumns(run.Trajectory)
			fore += recruitment(cols[:2], first, last) / float64(len(cr.Replicates))
			other += recruitment(cols[2:], first, last) / float64(len(cr.Replicates))
		}
	}
	return fore, other
}
