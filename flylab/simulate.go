package flylab

// ProgressFunc is told after each finished run how many of total runs are
// done; an activity can heartbeat from it. A non-nil return aborts the
// simulation and Simulate returns that error.
type ProgressFunc func(done, total int) error

// Simulate runs every condition × replicate of an approved protocol with
// the seeds of its manifest and returns the complete batch with both
// hashes. The protocol is re-derived from the catalog first: a protocol or
// manifest that was altered after design returns EVIDENCE_MISMATCH. The
// same protocol and seeds give byte-identical output on any machine.
func Simulate(protocol Protocol, seeds SeedManifest, progress ProgressFunc) (Batch, error) {
	circuit, err := checkProtocol(protocol, seeds)
	if err != nil {
		return Batch{}, err
	}
	total := len(protocol.Conditions) * protocol.Replicates
	done := 0
	runs := make([]ConditionRun, 0, len(protocol.Conditions))
	for ci, cond := range protocol.Conditions {
		derivation := protocol.DriveDerivations[ci]
		spec := newRunSpec(circuit, protocol, derivation)
		cr := ConditionRun{ConditionID: cond.ID, Label: cond.Label, Kind: cond.Kind, Laterality: cond.Laterality,
			Status: StatusComplete, DriveDerivation: derivation}
		for _, rep := range seeds.Conditions[ci].Replicates {
			run := simulateReplicate(protocol, cond, derivation, rep, spec)
			cr.RunIDs = append(cr.RunIDs, run.ID)
			cr.Replicates = append(cr.Replicates, run)
			done++
			if progress != nil {
				if err := progress(done, total); err != nil {
					return Batch{}, err
				}
			}
		}
		cr.IllustrativeRunID = cr.RunIDs[0]
		cr.IllustrativeTrajectory = illustrate(protocol, cond, seeds.Conditions[ci], spec)
		runs = append(runs, cr)
	}
	return assembleBatch(circuit, protocol, seeds, runs)
}

func simulateReplicate(p Protocol, cond Condition, d DriveDerivation, rep SeedReplicate, spec runSpec) RunResult {
	trajectory, timeline := simulateRun(spec, newSplitMix64(rep.TrajectorySeed))
	runID := contentID("run", map[string]any{"experimentId": p.ExperimentID, "conditionId": cond.ID,
		"replicateIndex": rep.ReplicateIndex, "seed": rep.Seed, "trajectorySeed": rep.TrajectorySeed,
		"channels": d.Channels, "modelVersion": ModelVersion})
	return RunResult{
		ID: runID, Status: StatusComplete, ConditionID: cond.ID, ReplicateIndex: rep.ReplicateIndex,
		Seed: rep.Seed, TrajectorySeed: rep.TrajectorySeed, EventTimeline: timeline,
		TrajectoryID:   contentID("trajectory", map[string]any{"runId": runID, "sampleIntervalMs": sampleIntervalMs}),
		TrajectoryRole: "per_run_simulated_trajectory", Trajectory: trajectory,
		Provenance: []string{LabelSimulationPredicted},
	}
}

func newRunSpec(c Circuit, p Protocol, d DriveDerivation) runSpec {
	spec := runSpec{drives: channelDrives(d), onsetMs: p.OnsetMs, offsetMs: p.OnsetMs + p.DurationMs,
		trialMs: p.TrialDurationMs, program: c.MotorMap.MotorProgram,
		groomPersistMs: c.MotorMap.Drive.GroomPersistenceMs, escape: c.MotorMap.MotorProgram == "escape_takeoff"}
	copy(spec.backwardWeights[:], c.MotorMap.Drive.BackwardLegWeights)
	return spec
}

// checkProtocol re-designs the protocol from its own settings and demands
// that protocol and seed manifest are exactly what design produces.
func checkProtocol(p Protocol, seeds SeedManifest) (Circuit, error) {
	if p.ModelVersion != ModelVersion {
		return Circuit{}, newError(CodeSimulationUnavailable, "protocol was designed for model "+p.ModelVersion,
			"model_version", ModelVersion)
	}
	redesigned, err := DesignProtocol(DesignRequest{HypothesisID: p.HypothesisID, TargetCircuitID: p.TargetCircuitID,
		Perturbation: p.Perturbation, Laterality: p.PrimaryLaterality, ActivationLevel: p.ActivationLevel,
		OnsetMs: p.OnsetMs, DurationMs: p.DurationMs, TrialDurationMs: p.TrialDurationMs, Replicates: p.Replicates,
		IncludeBaseline: true, IncludeShamControl: true, Seed: p.Seed})
	if err != nil {
		return Circuit{}, err
	}
	// The experiment id names this experiment (a replication has its own);
	// the settings are what must be exactly what design produces.
	redesigned.Experiment.Protocol.ExperimentID = p.ExperimentID
	want, err := ProtocolHash(redesigned.Experiment.Protocol, redesigned.SeedManifest)
	if err != nil {
		return Circuit{}, err
	}
	got, err := ProtocolHash(p, seeds)
	if err != nil {
		return Circuit{}, err
	}
	if got != want {
		return Circuit{}, newError(CodeEvidenceMismatch, "protocol or seed manifest differs from what the design produces",
			"expected_protocol_hash", want, "actual_protocol_hash", got)
	}
	return CircuitByID(p.TargetCircuitID)
}

func assembleBatch(c Circuit, p Protocol, seeds SeedManifest, runs []ConditionRun) (Batch, error) {
	model := ModelFor(c)
	contentHash, err := ContentHash(batchContent{Protocol: p, Model: model, ConditionRuns: runs})
	if err != nil {
		return Batch{}, err
	}
	return Batch{
		ID: "batch_" + contentHash[len("sha256:"):], ExperimentID: p.ExperimentID, TargetCircuitID: c.ID,
		Behavior: c.PrimaryBehavior(), MotorMap: c.MotorMap, Status: StatusComplete, ConditionRuns: runs,
		RunHash: legacyRunHash(runs), RunHashScope: RunHashScope, RunHashSerialization: RunHashSerialization,
		RunContentHash: contentHash, RunContentHashScope: RunContentHashScope,
		RunContentHashSerialization: RunContentHashSerialization, RunContentHashFields: RunContentHashFields(),
		Protocol: p, SeedManifest: seeds, Model: model, Provenance: []string{LabelSimulationPredicted},
		Boundary: model.Boundary,
	}, nil
}
