package flylab

// Versions of the model, its metric method and its seed policy. A change
// to any simulated number must bump ModelVersion.
const (
	ModelVersion        = "gatehouse.flylab.model.v1"
	ControllerVersion   = "gatehouse.flylab.drive-controller.v1"
	MetricMethodVersion = "gatehouse.flylab.behavior-metrics.v1"
	SeedPolicyVersion   = "gatehouse.flylab.seed-policy.v1"
)

// Model constants (units in names). Each is listed with its source or as an
// assumption in ModelParameters; keep the two in step.
const (
	stepMs             = 1
	sampleIntervalMs   = 5
	forwardSpeedMmS    = 30.0  // Vf: mode of walking speeds ~28 mm/s (Mendes 2013), derived
	maxSpeedMmS        = 45.0  // cap: fastest walking 44.7 mm/s (Mendes 2013)
	backwardSpeedMmS   = 10.0  // Vb: assumption
	speedTauMs         = 100.0 // τv: assumption
	turnRateDegS       = 150.0 // Ω: walking saccade ~15° in ~0.1 s (Geurten 2014), derived
	turnTauMs          = 50.0  // τω: assumption
	strideMm           = 1.9   // stride length; f = |v|/stride, derived
	maxStepHz          = 16.0  // step-period plateau ~60 ms (Mendes 2013)
	dutyFactor         = 0.65  // stance fraction from flygym's preprogrammed step, derived
	groomOnsetTauMs    = 200.0 // τon: assumption
	driveTauMs         = 10.0  // light-to-drive lag: assumption
	spontaneousForward = 0.15  // tonic forward drive of an unstimulated fly: assumption
	forwardNoiseSD     = 0.08  // OU noise on forward drive: assumption
	forwardNoiseTauMs  = 500.0
	turnNoiseSD        = 0.15 // OU noise on turn drive: assumption
	turnNoiseTauMs     = 300.0
	legPhaseNoiseSD    = 0.02 // per-leg phase jitter in cycles: assumption
	legPhaseNoiseTauMs = 100.0
	legActivationMmS   = 15.0 // speed at which a walking leg counts as fully active: assumption
	standingSpeedMmS   = 0.5  // below this every leg is in stance: assumption
	referenceDrive     = 0.72 // natural-stimulus drive in silencing designs (as the original FlyLab): assumption

	escapeHazardSlope   = 0.04 // κ of the escape hazard sigmoid: assumption
	giantFiberThreshold = 0.6  // θgf > θpar (von Reyn 2014, qualitative); values: assumption
	parallelThreshold   = 0.4
	giantFiberMaxPerMs  = 0.5 // λmax: assumption
	parallelMaxPerMs    = 0.05
	gfToTakeoffMs       = 7.0  // GF spike -> takeoff ~7 ms (secondary)
	shortModeWindowMs   = 7.0  // short mode: wing raise -> takeoff < 7 ms (secondary)
	gfWingRaiseMs       = 5.0  // GF spike -> partial wing raise: assumption
	parallelWingRaiseMs = 5.0  // parallel spike -> wing raise: assumption
	longModeMinMs       = 15.0 // long mode wing raise -> takeoff, uniform 15..35 ms: assumption
	longModeSpanMs      = 20.0
	shortLegExtendMs    = 3.33  // escape leg extension (secondary)
	longLegExtendMs     = 5.50  // voluntary leg extension (secondary)
	shortLaunchMmS      = 480.0 // 0.48 m/s (secondary)
	longLaunchMmS       = 280.0 // 0.28 m/s (secondary)
	launchAngleDeg      = 45.0  // (secondary)
	gravityMmS2         = 9810.0

	comOffsetMm     = -0.2 // centre of mass behind the midleg line: assumption
	footLongMm      = 1.0  // nominal fore/hind foot distance from the midleg line: assumption
	footLateralMm   = 0.9  // nominal lateral foot distance: assumption
	latencyHoldMs   = 30   // response must persist ≥ 30 ms (metric definition)
	latencySDs      = 2.0  // ±2 SD of baseline (LC16 phenotype threshold ~2 SD, Wu 2016)
	baselineWindowM = 1000 // B: 1 s before onset
)

// ModelParameter is one number of the model with where it comes from.
// Status: verified (read in a primary source), secondary, derived,
// physical_constant or assumption.
type ModelParameter struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Status string  `json:"status"`
	Source string  `json:"source"`
}

// ModelManifest identifies the model a batch was produced with.
type ModelManifest struct {
	Version             string           `json:"version"`
	Controller          string           `json:"controller"`
	Integrator          string           `json:"integrator"`
	StepMs              int              `json:"stepMs"`
	SampleIntervalMs    int              `json:"sampleIntervalMs"`
	PRNG                string           `json:"prng"`
	MetricMethodVersion string           `json:"metricMethodVersion"`
	SeedPolicyVersion   string           `json:"seedPolicyVersion"`
	CatalogVersion      string           `json:"catalogVersion"`
	CalibrationStatus   string           `json:"calibrationStatus"`
	UnitBoundary        string           `json:"unitBoundary"`
	Boundary            string           `json:"boundary"`
	Parameters          []ModelParameter `json:"parameters"`
	// ControllerMapping is how the target circuit's motor map enters the
	// controller; set on an experiment's and a batch's model. Records
	// stored before it existed omit it (and Provenance), so their hashes
	// still verify.
	ControllerMapping *ControllerMapping `json:"controllerMapping,omitempty"`
	Provenance        []string           `json:"provenance,omitempty"`
}

// Model returns the manifest of the current model.
func Model() ModelManifest {
	return ModelManifest{
		Version: ModelVersion, Controller: ControllerVersion,
		Integrator: "forward Euler at 1 ms; every product rounded explicitly (no fused multiply-add); exp/log by portable series",
		StepMs:     stepMs, SampleIntervalMs: sampleIntervalMs,
		PRNG:                "SplitMix64 seeded with the replicate's trajectory seed; uniform innovations",
		MetricMethodVersion: MetricMethodVersion, SeedPolicyVersion: SeedPolicyVersion, CatalogVersion: CatalogVersion(),
		CalibrationStatus: "literature_anchored_unfitted",
		UnitBoundary:      "Millimetres, milliseconds and degrees of a reduced-order model; anchored to published ranges, not fitted to data.",
		Boundary:          "simulation_predicted output of a reduced-order drive model (speed/turn dynamics, tripod stepping, grooming state, escape race, ballistic takeoff). It is not biological validation.",
		Parameters:        modelParameters(),
		Provenance:        []string{LabelDerived},
	}
}

// ModelFor is the model manifest with the controller mapping of circuit c.
func ModelFor(c Circuit) ModelManifest {
	m := Model()
	mapping := controllerMappingFor(c)
	m.ControllerMapping = &mapping
	return m
}

func modelParameters() []ModelParameter {
	p := func(name string, value float64, unit, status, source string) ModelParameter {
		return ModelParameter{Name: name, Value: value, Unit: unit, Status: status, Source: source}
	}
	const a = "assumption"
	return []ModelParameter{
		p("forward_speed_gain", forwardSpeedMmS, "mm/s", "derived", "mode of walking speed ~28 mm/s (Mendes 2013)"),
		p("max_speed", maxSpeedMmS, "mm/s", "verified", "fastest walking 44.7 mm/s (Mendes 2013)"),
		p("backward_speed_gain", backwardSpeedMmS, "mm/s", a, "unverified in the notes"),
		p("speed_time_constant", speedTauMs, "ms", a, "none"),
		p("turn_rate_gain", turnRateDegS, "deg/s", "derived", "walking saccade ~15 deg in ~0.1 s (Geurten 2014)"),
		p("turn_time_constant", turnTauMs, "ms", a, "none"),
		p("stride_length", strideMm, "mm", "derived", "f = |v|/stride reaches 16 Hz near 30 mm/s (Mendes 2013)"),
		p("max_step_frequency", maxStepHz, "Hz", "verified", "step period plateau ~60 ms (Mendes 2013)"),
		p("duty_factor", dutyFactor, "1", "derived", "flygym preprogrammed step: stance starts at 42-51 of 135 ms"),
		p("groom_onset_time_constant", groomOnsetTauMs, "ms", a, "none"),
		p("groom_persistence", 15000, "ms", a, "aBN layer: 'tens of seconds' (measured, value chosen); aDN layer 150 ms"),
		p("light_to_drive_lag", driveTauMs, "ms", a, "none"),
		p("spontaneous_forward_drive", spontaneousForward, "1", a, "none"),
		p("forward_noise_sd", forwardNoiseSD, "1", a, "OU, tau 500 ms"),
		p("turn_noise_sd", turnNoiseSD, "1", a, "OU, tau 300 ms"),
		p("leg_phase_noise_sd", legPhaseNoiseSD, "cycles", a, "OU, tau 100 ms"),
		p("leg_activation_speed", legActivationMmS, "mm/s", a, "none"),
		p("silencing_reference_drive", referenceDrive, "1", a, "as in the original FlyLab page"),
		p("escape_hazard_slope", escapeHazardSlope, "1", a, "none"),
		p("giant_fiber_threshold", giantFiberThreshold, "1", a, "ordering above the parallel threshold measured (von Reyn 2014)"),
		p("parallel_threshold", parallelThreshold, "1", a, "see giant_fiber_threshold"),
		p("giant_fiber_max_hazard", giantFiberMaxPerMs, "1/ms", a, "none"),
		p("parallel_max_hazard", parallelMaxPerMs, "1/ms", a, "none"),
		p("gf_spike_to_takeoff", gfToTakeoffMs, "ms", "secondary", "~7 ms"),
		p("short_mode_window", shortModeWindowMs, "ms", "secondary", "wing raise -> takeoff < 7 ms"),
		p("long_mode_raise_to_takeoff_min", longModeMinMs, "ms", a, "uniform over 20 ms span"),
		p("escape_leg_extension", shortLegExtendMs, "ms", "secondary", "3.33 ms escape vs 5.50 ms voluntary"),
		p("short_launch_speed", shortLaunchMmS, "mm/s", "secondary", "0.48 m/s"),
		p("long_launch_speed", longLaunchMmS, "mm/s", "secondary", "0.28 m/s"),
		p("launch_angle", launchAngleDeg, "deg", "secondary", "~45 deg"),
		p("gravity", gravityMmS2, "mm/s^2", "physical_constant", "g"),
		p("centre_of_mass_offset", comOffsetMm, "mm", a, "body ~2.5 mm (encyclopedic)"),
		p("latency_threshold_sd", latencySDs, "SD", "verified", "phenotype threshold ~2 SD of control (Wu 2016)"),
		p("latency_hold", latencyHoldMs, "ms", "derived", "metric definition"),
	}
}
