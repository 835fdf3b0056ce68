package flylab

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"regexp"
	"testing"
)

// lineageJSON is the run-lineage serialization written out by hand: the
// canonical JSON of [{runId, trajectoryId}] in run order.
func lineageJSON(b Batch) []byte {
	out := []byte("[")
	for _, cr := range b.ConditionRuns {
		for _, r := range cr.Replicates {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, `{"runId":"`+r.ID+`","trajectoryId":"`+r.TrajectoryID+`"}`...)
		}
	}
	return append(out, ']')
}

func TestBatch_RunHashIsSHA256OfTheRunLineage(t *testing.T) {
	b := simulateDesign(t, goldenDesign(t, "circuit_mdn_backward"))
	if !regexp.MustCompile(`^sha256:[a-f0-9]{64}$`).MatchString(b.RunHash) {
		t.Fatalf("runHash %q is not sha256:<64 hex>", b.RunHash)
	}
	sum := sha256.Sum256(lineageJSON(b))
	if want := "sha256:" + hex.EncodeToString(sum[:]); b.RunHash != want {
		t.Fatalf("runHash %s, recomputed %s", b.RunHash, want)
	}
	if b.RunHashSerialization != "SHA-256(RFC 8785 JCS([{ runId, trajectoryId }]))" {
		t.Errorf("serialization %q", b.RunHashSerialization)
	}
	if err := VerifyBatch(b); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyBatch_StillReadsBatchesStoredWithTheFNVRunHash(t *testing.T) {
	b := simulateDesign(t, goldenDesign(t, "circuit_mdn_backward"))
	h := fnv.New32a()
	h.Write(lineageJSON(b))
	b.RunHash, b.RunHashSerialization = "fnv1a:"+hex.EncodeToString(h.Sum(nil)), LegacyRunHashSerialization
	if err := VerifyBatch(b); err != nil {
		t.Fatalf("a batch stored with the fnv1a runHash no longer verifies: %v", err)
	}
	b.RunHash = "fnv1a:00000000"
	if err := VerifyBatch(b); errorCode(err) != CodeEvidenceMismatch {
		t.Fatalf("an altered fnv1a runHash verified: %v", err)
	}
}

func TestBatch_ModelNamesItsControllerMappingAndIllustrations(t *testing.T) {
	d := goldenDesign(t, "circuit_dn_steering")
	b := simulateDesign(t, d)
	for name, m := range map[string]ModelManifest{"experiment": d.Experiment.Model, "batch": b.Model} {
		cm := m.ControllerMapping
		if cm == nil || cm.CircuitID != "circuit_dn_steering" || cm.MotorMapID != b.MotorMap.ID || len(cm.Channels) == 0 {
			t.Fatalf("%s model controller mapping %+v", name, cm)
		}
		for _, ch := range cm.Channels {
			if ch.ModelVariable == "" {
				t.Errorf("%s: channel %s feeds no model variable", name, ch.Channel)
			}
		}
		if len(cm.Provenance) == 0 || len(m.Provenance) == 0 {
			t.Errorf("%s: model or mapping unlabelled", name)
		}
	}
	for _, cr := range b.ConditionRuns {
		it := cr.IllustrativeTrajectory
		if it == nil || it.Trajectory.Len() != IllustrativeSamples || it.ArtifactType != "illustrative_trajectory" {
			t.Fatalf("%s: illustrative trajectory %+v", cr.ConditionID, it)
		}
		if it.TrajectorySeed != d.SeedManifest.Conditions[0].TrajectorySeed {
			t.Errorf("%s: illustration seed %d is not the reserved seed", cr.ConditionID, it.TrajectorySeed)
		}
	}
}
