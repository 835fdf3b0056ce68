package flylab

import "math"

// Tripods {LF, RM, LH} and {RF, LM, RH} step in anti-phase (leg order as
// in Legs()).
var tripodPhaseOffset = [6]float64{0, 0.5, 0.5, 0, 0, 0.5}

const (
	foreLeft, foreRight, midLeft, midRight = 0, 1, 2, 3
	groomingThreshold                      = 0.5
)

// updateLegs sets each leg's stance flag and activation from the tripod
// phase, grooming state and escape sequence.
func (s *bodyState) updateLegs(spec runSpec, t int) {
	speed := math.Abs(s.speed)
	stepHz := math.Min(speed/strideMm, maxStepHz)
	s.phase += float64(stepHz * dtS)
	s.phase -= math.Floor(s.phase)
	walkEffort := math.Min(1, speed/legActivationMmS)
	for i := range s.stance {
		weight := 1.0
		if s.speed < 0 && spec.backwardWeights[i] > 0 {
			weight = spec.backwardWeights[i]
		}
		s.legActivation[i] = float64(walkEffort * weight)
		legPhase := s.phase + tripodPhaseOffset[i] + s.legNoise[i]
		legPhase -= math.Floor(legPhase)
		s.stance[i] = speed < standingSpeedMmS || legPhase < dutyFactor
	}
	if s.groom > groomingThreshold {
		for _, leg := range []int{foreLeft, foreRight} {
			s.stance[leg] = false
			s.legActivation[leg] = math.Max(s.legActivation[leg], s.groom)
		}
	} else if s.groom > 0.05 {
		for _, leg := range []int{foreLeft, foreRight} {
			s.legActivation[leg] = math.Max(s.legActivation[leg], s.groom)
		}
	}
	s.applyEscapeToLimbs(t)
}

func (s *bodyState) applyEscapeToLimbs(t int) {
	e := &s.escape
	if e.wingRaiseMs >= 0 && t+1 >= e.wingRaiseMs {
		s.wingActivation = [2]float64{1, 1}
	}
	if e.takeoffMs < 0 {
		return
	}
	extendMs := longLegExtendMs
	if e.shortMode() {
		extendMs = shortLegExtendMs
	}
	if float64(t+1) >= float64(e.takeoffMs)-extendMs {
		s.legActivation[midLeft], s.legActivation[midRight] = 1, 1
	}
	if s.airborne {
		for i := range s.stance {
			s.stance[i] = false
			if i != midLeft && i != midRight || t+1 > e.takeoffMs+20 {
				s.legActivation[i] = 0
			}
		}
	}
}
