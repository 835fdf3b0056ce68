package flylab

import "math"

// escapeRace is the takeoff race of the science notes: the giant fiber
// (higher threshold) and parallel pathways each fire when their integrated
// hazard λ = λmax·σ((D − θ)/κ) reaches an exponential threshold −ln u.
// A parallel spike raises the wings and schedules a long-mode takeoff; a
// GF spike schedules a takeoff ~7 ms later. The earliest takeoff wins and
// is short mode when it follows the wing raise by under 7 ms.
type escapeRace struct {
	gfThreshold, parThreshold float64
	gfIntegral, parIntegral   float64
	longModeMs                float64
	gfSpikeMs, parSpikeMs     int
	wingRaiseMs, takeoffMs    int
	censored                  bool
}

// newEscapeRace draws the race's three random numbers.
func newEscapeRace(rng *splitMix64) escapeRace {
	return escapeRace{
		gfThreshold:  -portableLog(rng.openUniform()),
		parThreshold: -portableLog(rng.openUniform()),
		longModeMs:   longModeMinMs + float64(longModeSpanMs*rng.uniform()),
		gfSpikeMs:    -1, parSpikeMs: -1, wingRaiseMs: -1, takeoffMs: -1,
	}
}

func hazardPerMs(drive, threshold, maxPerMs float64) float64 {
	return float64(maxPerMs * logistic((drive-threshold)/escapeHazardSlope))
}

func (e *escapeRace) advance(t int, gfDrive, parDrive float64, trialMs int) {
	if e.takeoffMs >= 0 && t >= e.takeoffMs {
		return
	}
	if e.parSpikeMs < 0 {
		e.parIntegral += float64(hazardPerMs(parDrive, parallelThreshold, parallelMaxPerMs) * stepMs)
		if e.parIntegral >= e.parThreshold {
			e.parSpikeMs = t + 1
			if e.wingRaiseMs < 0 {
				e.wingRaiseMs = e.parSpikeMs + int(parallelWingRaiseMs)
			}
			e.schedule(e.wingRaiseMs+int(math.Round(e.longModeMs)), trialMs)
		}
	}
	if e.gfSpikeMs < 0 {
		e.gfIntegral += float64(hazardPerMs(gfDrive, giantFiberThreshold, giantFiberMaxPerMs) * stepMs)
		if e.gfIntegral >= e.gfThreshold {
			e.gfSpikeMs = t + 1
			if raise := e.gfSpikeMs + int(gfWingRaiseMs); e.wingRaiseMs < 0 || e.wingRaiseMs > raise {
				e.wingRaiseMs = raise
			}
			e.schedule(e.gfSpikeMs+int(gfToTakeoffMs), trialMs)
		}
	}
}

// schedule keeps the earliest takeoff; one after the trial is censored.
func (e *escapeRace) schedule(takeoffMs, trialMs int) {
	if takeoffMs > trialMs {
		e.censored = e.takeoffMs < 0
		return
	}
	if e.takeoffMs < 0 || takeoffMs < e.takeoffMs {
		e.takeoffMs, e.censored = takeoffMs, false
	}
}

func (e *escapeRace) shortMode() bool {
	return e.takeoffMs >= 0 && float64(e.takeoffMs-e.wingRaiseMs) < shortModeWindowMs
}

func (e *escapeRace) firstSpikeMs() int {
	switch {
	case e.gfSpikeMs < 0:
		return e.parSpikeMs
	case e.parSpikeMs < 0:
		return e.gfSpikeMs
	}
	return min(e.gfSpikeMs, e.parSpikeMs)
}
