package flylab

import (
	"math"
	"slices"
	"strings"
)

// recorder samples the body state into a column-wise trajectory. Values
// are rounded (1e-4 mm, 1e-3 degrees and activations) so stored numbers
// are short and stable.
type recorder struct{ trajectory Trajectory }

func newRecorder(trialMs int) *recorder {
	n := trialMs/sampleIntervalMs + 1
	tr := Trajectory{SampleIntervalMs: sampleIntervalMs,
		TimeMs: make([]float64, 0, n), XMm: make([]float64, 0, n), YMm: make([]float64, 0, n),
		ZMm: make([]float64, 0, n), HeadingDeg: make([]float64, 0, n)}
	for _, leg := range Legs() {
		tr.Legs = append(tr.Legs, LegTrack{BodyPart: leg, Activation: make([]float64, 0, n), Stance: make([]bool, 0, n)})
	}
	for _, wing := range Wings() {
		tr.Wings = append(tr.Wings, WingTrack{BodyPart: wing, Activation: make([]float64, 0, n)})
	}
	return &recorder{trajectory: tr}
}

func (r *recorder) record(t int, s *bodyState) {
	tr := &r.trajectory
	tr.TimeMs = append(tr.TimeMs, float64(t))
	tr.XMm = append(tr.XMm, roundTo(s.x, 1e4))
	tr.YMm = append(tr.YMm, roundTo(s.y, 1e4))
	tr.ZMm = append(tr.ZMm, roundTo(s.z, 1e4))
	tr.HeadingDeg = append(tr.HeadingDeg, roundTo(wrapDegrees(s.theta*180/math.Pi), 1e3))
	for i := range tr.Legs {
		tr.Legs[i].Activation = append(tr.Legs[i].Activation, roundTo(s.legActivation[i], 1e3))
		tr.Legs[i].Stance = append(tr.Legs[i].Stance, s.stance[i])
	}
	for i := range tr.Wings {
		tr.Wings[i].Activation = append(tr.Wings[i].Activation, roundTo(s.wingActivation[i], 1e3))
	}
}

// wrapDegrees maps an angle to (−180, 180].
func wrapDegrees(deg float64) float64 {
	deg = math.Mod(deg, 360)
	switch {
	case deg > 180:
		deg -= 360
	case deg <= -180:
		deg += 360
	}
	return deg
}

func (s *bodyState) timeline(spec runSpec) EventTimeline {
	at := func(ms int) *int {
		if ms < 0 {
			return nil
		}
		return &ms
	}
	tl := EventTimeline{StimulusOnsetMs: spec.onsetMs, StimulusOffsetMs: spec.offsetMs,
		ResponseRule: responseRule(spec.program), TakeoffMode: "none", EscapeCensored: s.escape.censored}
	if s.responseRecorded {
		tl.ResponseInitiationMs = at(s.responseMs)
	}
	if spec.escape {
		tl.GiantFiberSpikeMs, tl.ParallelSpikeMs = at(s.escape.gfSpikeMs), at(s.escape.parSpikeMs)
		tl.WingRaiseMs, tl.TakeoffMs = at(s.escape.wingRaiseMs), at(s.escape.takeoffMs)
		if s.escape.takeoffMs >= 0 {
			tl.TakeoffMode = "long"
			if s.escape.shortMode() {
				tl.TakeoffMode = "short"
			}
		}
	}
	tl.Events = []Event{{"stimulus_onset", spec.onsetMs}, {"stimulus_offset", spec.offsetMs}}
	add := func(name string, ms *int) {
		if ms != nil && *ms <= spec.trialMs {
			tl.Events = append(tl.Events, Event{name, *ms})
		}
	}
	add("response_initiation", tl.ResponseInitiationMs)
	add("giant_fiber_spike", tl.GiantFiberSpikeMs)
	add("parallel_pathway_spike", tl.ParallelSpikeMs)
	add("wing_raise", tl.WingRaiseMs)
	add("takeoff", tl.TakeoffMs)
	slices.SortStableFunc(tl.Events, func(a, b Event) int {
		if a.TMs != b.TMs {
			return a.TMs - b.TMs
		}
		return strings.Compare(a.Name, b.Name)
	})
	return tl
}
