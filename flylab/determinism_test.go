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
	"circuit_mdn_backward":          "sha256:614096bededc9cf11986827637a8ea77c1431053c1ad7311d05c7cd3faf05f29",
	"circuit_lc16_retreat":          "sha256:708e664dbb308f932444e86b7f6538f176be6de892e7b2582c1fffde503e2a20",
	"circuit_gf_short_escape":       "sha256:f8246f40aebda583d3ac9a454a03cdb757e2e74b04d083e32b039ebf66d03fff",
	"circuit_lc_loom_takeoff":       "sha256:d4e8f89e4aea097efa98329bf8ccb4f51ecaefa70fe02287b7570aa27e1bdedc",
	"circuit_p9_bpn_forward":        "sha256:4e94bc8fcd0194140c8376796754064f9c06063b4c3f1ea979c46f299a0a0c0e",
	"circuit_dn_steering":           "sha256:4d8dd9d465e861c3b80b829f987ec42c76142f235582d400323cf087b9db37bb",
	"circuit_antennal_grooming_abn": "sha256:bbe443c5d0f9a33e221f39525bd1f1e040e99dc0aa41f23d10c3ad92a19aaa9c",
	"circuit_antennal_grooming_adn": "sha256:973959d405a94ee8f4e437bae04498f2fe4a3874570b1631bf89082dad23c1a4",
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
