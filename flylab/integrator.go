package flylab

import "math"

// runSpec is everything one run needs: the arm's channel drives during the
// stimulation window, timing, and the circuit's motor program settings.
type runSpec struct {
	drives          [6]float64
	onsetMs         int
	offsetMs        int
	trialMs         int
	program         string
	groomPersistMs  float64
	backwardWeights [6]float64
	escape          bool
}

// bodyState is the integrated state of the simulated fly.
type bodyState struct {
	x, y, z, theta   float64 // mm, mm, mm, rad
	speed, turnRate  float64 // mm/s (+ forward), rad/s (+ left)
	lagged           [6]float64
	groom            float64
	forwardNoise     float64
	turnNoise        float64
	legNoise         [6]float64
	phase            float64 // tripod phase in cycles
	airborne         bool
	apexReached      bool
	launchSpeed      float64
	legActivation    [6]float64
	stance           [6]bool
	wingActivation   [2]float64
	escape           escapeRace
	responseMs       int
	responseRecorded bool
}

const dtS = stepMs / 1000.0

// Per-step coefficients of the first-order lags and OU processes.
var (
	driveLag    = float64(stepMs / driveTauMs)
	speedLag    = float64(stepMs / speedTauMs)
	turnLag     = float64(stepMs / turnTauMs)
	fwdNoiseLag = float64(stepMs / forwardNoiseTauMs)
	fwdNoiseAmp = forwardNoiseSD * math.Sqrt(2*stepMs/forwardNoiseTauMs)
	trnNoiseLag = float64(stepMs / turnNoiseTauMs)
	trnNoiseAmp = turnNoiseSD * math.Sqrt(2*stepMs/turnNoiseTauMs)
	legNoiseLag = float64(stepMs / legPhaseNoiseTauMs)
	legNoiseAmp = legPhaseNoiseSD * math.Sqrt(2*stepMs/legPhaseNoiseTauMs)
	turnGainRad = turnRateDegS * math.Pi / 180
)

// relax moves value toward target by fraction k; the explicit conversion
// stops the compiler fusing the multiply and add (bit-identical results).
func relax(value, target, k float64) float64 { return value + float64(k*(target-value)) }

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// simulateRun integrates one run at 1 ms and samples the trajectory.
func simulateRun(spec runSpec, rng *splitMix64) (Trajectory, EventTimeline) {
	var s bodyState
	s.escape = newEscapeRace(rng) // drawn first in every arm: common random numbers
	rec := newRecorder(spec.trialMs)
	for t := 0; ; t++ {
		if t%sampleIntervalMs == 0 {
			rec.record(t, &s)
		}
		if t >= spec.trialMs {
			break
		}
		step(&s, spec, t, rng)
	}
	return rec.trajectory, s.timeline(spec)
}

func step(s *bodyState, spec runSpec, t int, rng *splitMix64) {
	inWindow := t >= spec.onsetMs && t < spec.offsetMs
	for i := range s.lagged {
		target := 0.0
		if inWindow {
			target = spec.drives[i]
		}
		s.lagged[i] = relax(s.lagged[i], target, driveLag)
	}
	// Eight draws every step, in every arm, whatever the drive.
	s.forwardNoise = relax(s.forwardNoise, 0, fwdNoiseLag) + float64(fwdNoiseAmp*rng.unitNoise())
	s.turnNoise = relax(s.turnNoise, 0, trnNoiseLag) + float64(trnNoiseAmp*rng.unitNoise())
	for i := range s.legNoise {
		s.legNoise[i] = relax(s.legNoise[i], 0, legNoiseLag) + float64(legNoiseAmp*rng.unitNoise())
	}

	groomTau := groomOnsetTauMs
	if s.lagged[3] < s.groom {
		groomTau = math.Max(spec.groomPersistMs, groomOnsetTauMs)
	}
	s.groom = relax(s.groom, clamp(s.lagged[3], 0, 1), float64(stepMs/groomTau))

	forward := clamp(spontaneousForward+s.forwardNoise+s.lagged[0], 0, 1)
	backward := clamp(s.lagged[1], 0, 1)
	turn := clamp(s.turnNoise+s.lagged[2], -1, 1)
	free := 1 - s.groom
	targetSpeed := float64(free * float64(float64(forwardSpeedMmS*forward)*(1-backward)-float64(backwardSpeedMmS*backward)))
	s.speed = clamp(relax(s.speed, targetSpeed, speedLag), -maxSpeedMmS, maxSpeedMmS)
	s.turnRate = relax(s.turnRate, float64(float64(turnGainRad*turn)*free), turnLag)

	if spec.escape {
		s.escape.advance(t, s.lagged[4], s.lagged[5], spec.trialMs)
	}
	if s.escape.takeoffMs >= 0 && t >= s.escape.takeoffMs {
		s.fly(t)
	} else {
		s.theta += float64(s.turnRate * dtS)
		s.x += float64(float64(s.speed*math.Cos(s.theta)) * dtS)
		s.y += float64(float64(s.speed*math.Sin(s.theta)) * dtS)
	}
	s.updateLegs(spec, t)
	s.noteResponse(spec, t)
}

// fly advances the ballistic takeoff: launch at 45° until the apex, then
// the position is held (flight itself is outside the model).
func (s *bodyState) fly(t int) {
	if !s.airborne {
		s.airborne = true
		s.launchSpeed = longLaunchMmS
		if s.escape.shortMode() {
			s.launchSpeed = shortLaunchMmS
		}
	}
	if s.apexReached {
		return
	}
	angle := launchAngleDeg * math.Pi / 180
	airborneS := float64(t+1-s.escape.takeoffMs) * dtS
	vertical := float64(s.launchSpeed * math.Sin(angle))
	if float64(gravityMmS2*airborneS) >= vertical {
		s.apexReached = true
		airborneS = vertical / gravityMmS2
	}
	horizontal := float64(s.launchSpeed * math.Cos(angle))
	s.z = float64(vertical*airborneS) - float64(0.5*float64(gravityMmS2*float64(airborneS*airborneS)))
	if !s.apexReached {
		s.x += float64(float64(horizontal*math.Cos(s.theta)) * dtS)
		s.y += float64(float64(horizontal*math.Sin(s.theta)) * dtS)
	}
	s.speed, s.turnRate = 0, 0
}

// noteResponse records the model's response-initiation event: the first
// time after onset the program's behavioral state is reached.
func (s *bodyState) noteResponse(spec runSpec, t int) {
	if s.responseRecorded || t < spec.onsetMs {
		return
	}
	reached := false
	switch spec.program {
	case "reverse_walking", "reverse_walking_with_turn":
		reached = s.speed < -1
	case "forward_walking":
		reached = s.speed > 15
	case "steering":
		reached = math.Abs(s.turnRate) > 60*math.Pi/180
	case "antennal_grooming":
		reached = s.groom >= 0.5
	case "escape_takeoff":
		reached = s.escape.firstSpikeMs() >= 0
	}
	if reached {
		s.responseRecorded, s.responseMs = true, t+1
	}
}

func responseRule(program string) string {
	switch program {
	case "reverse_walking", "reverse_walking_with_turn":
		return "first time after onset that speed < -1 mm/s (moving backward)"
	case "forward_walking":
		return "first time after onset that speed > 15 mm/s"
	case "steering":
		return "first time after onset that |turn rate| > 60 deg/s"
	case "antennal_grooming":
		return "first time after onset that the grooming state reaches 0.5"
	}
	return "first giant-fiber or parallel-pathway spike after onset"
}
