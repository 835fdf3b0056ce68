package flylab

import "math"

// runMetrics are one run's nine metric values (nil = null) and its
// response observation flags.
type runMetrics struct {
	values           map[string]*float64
	responseStarted  bool
	thresholdCrossed bool
	censored         bool
}

// Signal floors for the latency threshold (assumptions): without them a
// quiet baseline would make any wobble a "response".
const (
	speedSDFloorMmS   = 1.0
	turnSDFloorDegS   = 10.0
	groomSDFloor      = 0.05
	recruitedActivity = 0.5
)

// stableStance[mask] says whether the legs in stance (bit i = leg i) hold
// the centre of mass inside their nominal foot polygon; computed once.
var stableStance = func() (table [64]bool) {
	feet := [6][2]float64{{footLongMm, footLateralMm}, {footLongMm, -footLateralMm}, {0, footLateralMm},
		{0, -footLateralMm}, {-footLongMm, footLateralMm}, {-footLongMm, -footLateralMm}}
	com := [2]float64{comOffsetMm, 0}
	for mask := range 64 {
		var legs [][2]float64
		for i := range 6 {
			if mask&(1<<i) != 0 {
				legs = append(legs, feet[i])
			}
		}
		for a := 0; a < len(legs) && len(legs) >= 3 && !table[mask]; a++ {
			for b := a + 1; b < len(legs); b++ {
				for c := b + 1; c < len(legs); c++ {
					if insideTriangle(com, legs[a], legs[b], legs[c]) {
						table[mask] = true
					}
				}
			}
		}
	}
	return table
}()

func insideTriangle(p, a, b, c [2]float64) bool {
	cross := func(o, u, v [2]float64) float64 { return (u[0]-o[0])*(v[1]-o[1]) - (u[1]-o[1])*(v[0]-o[0]) }
	d1, d2, d3 := cross(a, b, p), cross(b, c, p), cross(c, a, p)
	hasNeg := d1 < 0 || d2 < 0 || d3 < 0
	hasPos := d1 > 0 || d2 > 0 || d3 > 0
	return !hasNeg || !hasPos
}

// sampleWindow returns the first and last sample index inside W.
func sampleWindow(tr Trajectory, onsetMs, durationMs int) (int, int) {
	interval := tr.SampleIntervalMs
	first := (onsetMs + interval - 1) / interval
	last := min((onsetMs+durationMs)/interval, tr.Len()-1)
	return first, last
}

func computeRunMetrics(run RunResult, p Protocol, program string) runMetrics {
	tr := run.Trajectory
	first, last := sampleWindow(tr, p.OnsetMs, p.DurationMs)
	dt := float64(tr.SampleIntervalMs) / 1000
	m := runMetrics{values: map[string]*float64{}}
	set := func(id string, v float64) { v = round6(v); m.values[id] = &v }

	backward, displacement, turn := 0.0, 0.0, 0.0
	for i := first; i < last; i++ {
		d := stepDisplacement(tr, i)
		backward += math.Max(0, -d)
		displacement += d
		turn += wrapDegrees(tr.HeadingDeg[i+1] - tr.HeadingDeg[i])
	}
	steps := float64(max(last-first, 1))
	set(MetricBackwardDistance, backward)
	set(MetricSignedSpeed, displacement/steps/dt)
	set(MetricHeadingChange, turn)

	samples := float64(last - first + 1)
	stable, maxZ := 0, tr.ZMm[first]
	for i := first; i <= last; i++ {
		mask := 0
		for leg := range tr.Legs {
			if tr.Legs[leg].Stance[i] {
				mask |= 1 << leg
			}
		}
		if stableStance[mask] {
			stable++
		}
		maxZ = math.Max(maxZ, tr.ZMm[i])
	}
	set(MetricStanceStability, float64(stable)/samples)
	set(MetricVerticalDisplace, maxZ-tr.ZMm[first])
	set(MetricWingRecruitment, recruitment(wingColumns(tr), first, last))
	set(MetricLegRecruitment, recruitment(legColumns(tr), first, last))

	tl := run.EventTimeline
	windowEnd := p.OnsetMs + p.DurationMs
	short := 0.0
	if tl.TakeoffMs != nil && *tl.TakeoffMs >= p.OnsetMs && *tl.TakeoffMs <= windowEnd && tl.TakeoffMode == "short" {
		short = 1
	}
	set(MetricShortModeEscape, short)

	if program == "escape_takeoff" {
		spike := firstOf(tl.GiantFiberSpikeMs, tl.ParallelSpikeMs)
		m.thresholdCrossed = spike != nil && *spike >= p.OnsetMs && *spike <= windowEnd
		m.censored = tl.EscapeCensored
		if tl.TakeoffMs != nil && *tl.TakeoffMs >= p.OnsetMs && *tl.TakeoffMs <= windowEnd {
			set(MetricResponseLatency, float64(*tl.TakeoffMs-p.OnsetMs))
			m.responseStarted = true
		}
		return m
	}
	signal, floor := primarySignal(tr, program)
	latency, crossed, censored := thresholdLatency(tr, signal, floor, p.OnsetMs, first, last)
	m.thresholdCrossed, m.censored = crossed, censored
	if latency >= 0 {
		set(MetricResponseLatency, float64(latency))
		m.responseStarted = true
	} else {
		m.values[MetricResponseLatency] = nil
	}
	return m
}

func firstOf(a, b *int) *int {
	switch {
	case a == nil:
		return b
	case b == nil || *a <= *b:
		return a
	}
	return b
}

// stepDisplacement is d_i: the displacement to sample i+1 along heading i.
func stepDisplacement(tr Trajectory, i int) float64 {
	theta := tr.HeadingDeg[i] * math.Pi / 180
	return (tr.XMm[i+1]-tr.XMm[i])*math.Cos(theta) + (tr.YMm[i+1]-tr.YMm[i])*math.Sin(theta)
}

func legColumns(tr Trajectory) [][]float64 {
	cols := make([][]float64, len(tr.Legs))
	for i, l := range tr.Legs {
		cols[i] = l.Activation
	}
	return cols
}

func wingColumns(tr Trajectory) [][]float64 {
	cols := make([][]float64, len(tr.Wings))
	for i, w := range tr.Wings {
		cols[i] = w.Activation
	}
	return cols
}

func recruitment(columns [][]float64, first, last int) float64 {
	total := 0.0
	for _, col := range columns {
		active := 0
		for i := first; i <= last; i++ {
			if col[i] > recruitedActivity {
				active++
			}
		}
		total += float64(active) / float64(last-first+1)
	}
	return total / float64(len(columns))
}

// primarySignal is the per-sample signal whose departure from baseline
// defines the latency: signed speed (walking), turn rate (steering) or
// mean foreleg activation (grooming).
func primarySignal(tr Trajectory, program string) ([]float64, float64) {
	n := tr.Len()
	dt := float64(tr.SampleIntervalMs) / 1000
	signal := make([]float64, n-1)
	for i := range signal {
		switch program {
		case "steering":
			signal[i] = wrapDegrees(tr.HeadingDeg[i+1]-tr.HeadingDeg[i]) / dt
		case "antennal_grooming":
			signal[i] = (tr.Legs[0].Activation[i] + tr.Legs[1].Activation[i]) / 2
		default:
			signal[i] = stepDisplacement(tr, i) / dt
		}
	}
	switch program {
	case "steering":
		return signal, turnSDFloorDegS
	case "antennal_grooming":
		return signal, groomSDFloor
	}
	return signal, speedSDFloorMmS
}

// thresholdLatency finds the first window sample whose signal leaves the
// baseline band and stays out for latencyHoldMs; it returns −1 when none.
func thresholdLatency(tr Trajectory, signal []float64, floor float64, onsetMs, first, last int) (int, bool, bool) {
	interval := tr.SampleIntervalMs
	var baseline []float64
	for i := range signal {
		if t := int(tr.TimeMs[i]); t >= onsetMs-baselineWindowM && t < onsetMs {
			baseline = append(baseline, signal[i])
		}
	}
	mean, sd := meanSD(baseline)
	band := latencySDs * math.Max(sd, floor)
	outside := func(i int) bool { return math.Abs(signal[i]-mean) > band }
	hold := latencyHoldMs / interval
	crossed := false
	for i := first; i <= last && i < len(signal); i++ {
		if !outside(i) {
			continue
		}
		crossed = true
		k := 0
		for k < hold && i+k+1 < len(signal) && outside(i+k+1) {
			k++
		}
		if k == hold {
			return int(tr.TimeMs[i]) - onsetMs, true, false
		}
		if i+k+1 >= len(signal) {
			return -1, true, true
		}
	}
	return -1, crossed, false
}
