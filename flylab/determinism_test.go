package flylab

import (
	"encoding/json"
	"flag"
	"testing"
)

var printGolden = flag.Bool("print-golden", false, "print the golden run content hashes instead of checking them")

// goldenRunContentHashes pin the model: a change to any simulated number
// changes these and must come with a ModelVersion bump.
var goldenRunContentHashes = map[string]string{
	"circuit_mdn_backward":          "sha256:daee1b3b1c375d8b07c46db029422c54a173ab778fcb851c456d0c8f7af18844",
	"circuit_lc16_retreat":          "sha256:1c08c884c818154d05cc8368a84a25bb9e15ea843e297c2188f689b8713cdfea",
	"circuit_gf_short_escape":       "sha256:203dfe81a9591aa25b68cfae9a1bb0b66f7a03c496554c31f5a68cd660dca21c",
	"circuit_lc_loom_takeoff":       "sha256:4df387d7aefb22d14a2c72840dbbd6abf2f730c4c2fceac0a943070339c681fe",
	"circuit_p9_bpn_forward":        "sha256:0aac80f7b347139ffe2a40348fba48169dbaea0a6b2c383336a65be5715ee8d7",
	"circuit_dn_steering":           "sha256:45fa39a7890fbf0ba2b23b0582301c96d2b29ba192beee3645f2b303b9fc8873",
	"circuit_antennal_grooming_abn": "sha256:33d2e7eaa08bf7720948507e49231bd0bab3a595286341f0e5e8242490e56d62",
	"circuit_antennal_grooming_adn": "sha256:3faa2c5738170b5d8dbca9b8e7cfd3447197871e9d7591c794433095b13a73bd",
}

// goldenTrajectoryDigests pin the simulated numbers alone (every run's
// trajectory, event timeline and seeds), so a change to manifests, ids or
// hashes that leaves the simulation as it was shows here as unchanged.
// These are the digests of model v1 before the manifests gained
// controller mappings and labels.
var goldenTrajectoryDigests = map[string]string{
	"circuit_mdn_backward":          "sha256:f93b89e020427fcdc931c52f0a4f53e0eb2d5687a539838b28a5373902db0573",
	"circuit_lc16_retreat":          "sha256:26307dbd2df309948c32154332d7c25f8f4c981e015dba099308b6870d4901c4",
	"circuit_gf_short_escape":       "sha256:fa78c48b87d60b3299a278838053759f26d920e602ddb83a1bd2a99cda79590e",
	"circuit_lc_loom_takeoff":       "sha256:448f7cad8622c66def8ea68ee9e179cfe434382bafa512bafcfa68566b5449a2",
	"circuit_p9_bpn_forward":        "sha256:eb0cd749962f089a941f89358eb4100882f6087fcfa53ee515948a5bd5d6dc16",
	"circuit_dn_steering":           "sha256:92254414ed4c452eea535653f2a2642bc6696f9f82dce0507a395abf3c73ad4a",
	"circuit_antennal_grooming_abn": "sha256:8afbbc2f9484bc5fc13bda12c0b21150ceed169a26e68de160ab473cb3cbc182",
	"circuit_antennal_grooming_adn": "sha256:097064ded635e0b647a2c0d241962f451198a268db28866d580984e88a3a58cc",
}

func TestSimulate_GoldenTrajectoriesPerCircuit(t *testing.T) {
	for _, c := range Catalog().Circuits {
		if c.ModelCoverage != CoverageMappedReducedOrder {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			b := simulateDesign(t, goldenDesign(t, c.ID))
			var runs []any
			for _, cr := range b.ConditionRuns {
				for _, r := range cr.Replicates {
					runs = append(runs, []any{r.Trajectory, r.EventTimeline, r.Seed, r.TrajectorySeed})
				}
			}
			got, err := ContentHash(runs)
			if err != nil {
				t.Fatal(err)
			}
			if want := goldenTrajectoryDigests[c.ID]; got != want {
				t.Errorf("trajectory digest %s, golden %s", got, want)
			}
		})
	}
}

func goldenDesign(t testing.TB, circuitID string) Design {
	return designFor(t, circuitID, PerturbationActivate, LateralityBilateral, 0.8, func(r *DesignRequest) {
		r.OnsetMs, r.DurationMs, r.TrialDurationMs, r.Replicates, r.Seed = 500, 500, 1500, 2, 42
	})
}

func TestSimulate_GoldenHashPerCircuit(t *testing.T) {
	for _, c := range Catalog().Circuits {
		if c.ModelCoverage != CoverageMappedReducedOrder {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			b := simulateDesign(t, goldenDesign(t, c.ID))
			if *printGolden {
				t.Logf("%q: %q,", c.ID, b.RunContentHash)
				return
			}
			if want, ok := goldenRunContentHashes[c.ID]; !ok || b.RunContentHash != want {
				t.Errorf("runContentHash %s, golden %s", b.RunContentHash, want)
			}
		})
	}
}

func TestSimulate_SameInputGivesSameBytes(t *testing.T) {
	d := goldenDesign(t, "circuit_gf_short_escape")
	first, second := simulateDesign(t, d), simulateDesign(t, d)
	a, _ := CanonicalJSON(first)
	b, _ := CanonicalJSON(second)
	if string(a) != string(b) || first.RunContentHash != second.RunContentHash || first.RunHash != second.RunHash {
		t.Fatal("two simulations of the same protocol differ")
	}
	if first.ID != "batch_"+first.RunContentHash[len("sha256:"):] {
		t.Errorf("batch id %s does not derive from its content hash", first.ID)
	}
}

func TestSimulate_ArmsShareRandomDraws(t *testing.T) {
	b := simulateDesign(t, goldenDesign(t, "circuit_mdn_backward"))
	baseline, sham := b.ConditionRuns[0].Replicates[0], b.ConditionRuns[1].Replicates[0]
	x, _ := CanonicalJSON(baseline.Trajectory)
	y, _ := CanonicalJSON(sham.Trajectory)
	if string(x) != string(y) {
		t.Error("baseline and zero-drive sham trajectories differ: arms do not share draws")
	}
	if baseline.TrajectorySeed != b.ConditionRuns[2].Replicates[0].TrajectorySeed {
		t.Error("replicate 0 uses different seeds across arms")
	}
}

func TestVerifyBatch_SurvivesJSONRoundTripAndCatchesTampering(t *testing.T) {
	b := simulateDesign(t, goldenDesign(t, "circuit_dn_steering"))
	raw, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var loaded Batch
	if err := json.Unmarshal(raw, &loaded); err != nil {
		t.Fatal(err)
	}
	if err := VerifyBatch(loaded); err != nil {
		t.Fatalf("round-tripped batch fails verification: %v", err)
	}
	loaded.ConditionRuns[2].Replicates[1].Trajectory.XMm[100] += 0.001
	if err := VerifyBatch(loaded); errorCode(err) != CodeEvidenceMismatch {
		t.Errorf("tampered trajectory: got %v, want EVIDENCE_MISMATCH", err)
	}
	if _, err := Analyze(loaded, loaded.MotorMap.RecommendedMetrics); errorCode(err) != CodeEvidenceMismatch {
		t.Errorf("Analyze of tampered batch: got %v, want EVIDENCE_MISMATCH", err)
	}
}

func TestSimulate_RejectsAlteredProtocolOrSeeds(t *testing.T) {
	d := goldenDesign(t, "circuit_mdn_backward")
	p := d.Experiment.Protocol
	p.DriveDerivations = append([]DriveDerivation{}, p.DriveDerivations...)
	p.DriveDerivations[2].Channels = []ChannelDrive{{Channel: channelBackward, Gain: 1, SideSign: 1, Effective: 5}}
	if _, err := Simulate(p, d.SeedManifest, nil); errorCode(err) != CodeEvidenceMismatch {
		t.Errorf("altered drive: got %v, want EVIDENCE_MISMATCH", err)
	}
	seeds := NewSeedManifest(d.Experiment.Protocol)
	seeds.Conditions[0].Replicates[0].TrajectorySeed++
	if _, err := Simulate(d.Experiment.Protocol, seeds, nil); errorCode(err) != CodeEvidenceMismatch {
		t.Errorf("altered seed: got %v, want EVIDENCE_MISMATCH", err)
	}
	old := d.Experiment.Protocol
	old.ModelVersion = "gatehouse.flylab.model.v0"
	if _, err := Simulate(old, d.SeedManifest, nil); errorCode(err) != CodeSimulationUnavailable {
		t.Errorf("old model: got %v, want SIMULATION_UNAVAILABLE", err)
	}
}

func TestProtocolHash_BindsProtocolAndSeeds(t *testing.T) {
	d := goldenDesign(t, "circuit_mdn_backward")
	again := goldenDesign(t, "circuit_mdn_backward")
	if d.ProtocolHash != again.ProtocolHash || d.Experiment.ID != again.Experiment.ID {
		t.Fatal("identical designs hash differently")
	}
	other := designFor(t, "circuit_mdn_backward", PerturbationActivate, LateralityBilateral, 0.8, func(r *DesignRequest) {
		r.OnsetMs, r.DurationMs, r.TrialDurationMs, r.Replicates, r.Seed = 500, 500, 1500, 2, 43
	})
	if other.ProtocolHash == d.ProtocolHash || other.SeedManifestHash == d.SeedManifestHash {
		t.Error("a different seed did not change the hashes")
	}
	if len(d.ProtocolHash) != 71 {
		t.Errorf("protocol hash %q is not sha256:<64 hex>", d.ProtocolHash)
	}
}
