package flylab

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"strings"
)

// Hash scopes and serializations stated on every batch, so a reader knows
// exactly which fields each hash covers and how they were serialized.
const (
	RunHashScope         = "run_and_trajectory_ids_only"
	RunHashSerialization = "SHA-256(RFC 8785 JCS([{ runId, trajectoryId }]))"
	// LegacyRunHashSerialization is how batches stored before the sha256
	// runHash were hashed ("fnv1a:" prefix); they still verify.
	LegacyRunHashSerialization  = "FNV-1a-32(RFC 8785 JCS([{ runId, trajectoryId }]))"
	RunContentHashScope         = "protocol_model_and_complete_condition_runs"
	RunContentHashSerialization = "SHA-256(RFC 8785 JCS({ protocol, model, conditionRuns }))"
	ProtocolHashSerialization   = "SHA-256(RFC 8785 JCS({ protocol, seed_manifest }))"
)

// RunContentHashFields names the batch fields covered by runContentHash.
func RunContentHashFields() []string { return []string{"protocol", "model", "conditionRuns"} }

// ContentHash returns "sha256:" + 64 lowercase hex digits over the RFC 8785
// canonical JSON of v.
func ContentHash(v any) (string, error) {
	hexDigest, err := contentDigest(v)
	if err != nil {
		return "", err
	}
	return "sha256:" + hexDigest, nil
}

func contentDigest(v any) (string, error) {
	canonical, err := CanonicalJSON(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:]), nil
}

// contentID is an id prefixed with its record type, e.g. "run_<64 hex>";
// identical defining inputs give identical ids.
func contentID(prefix string, definingInputs any) string {
	digest, err := contentDigest(definingInputs)
	if err != nil {
		panic("flylab: defining inputs of an id must be canonicalizable: " + err.Error())
	}
	return prefix + "_" + digest
}

// ProtocolHash is the approval binding: "sha256:" + hex over the canonical
// JSON of {protocol, seed_manifest}. Any change to either changes the hash.
func ProtocolHash(protocol Protocol, seeds SeedManifest) (string, error) {
	return ContentHash(map[string]any{"protocol": protocol, "seed_manifest": seeds})
}

// SeedManifestHash is "sha256:" + hex over the canonical JSON of the manifest.
func SeedManifestHash(seeds SeedManifest) (string, error) { return ContentHash(seeds) }

type runLineage struct {
	RunID        string `json:"runId"`
	TrajectoryID string `json:"trajectoryId"`
}

// legacyRunHash is the lineage-only hash kept for compatibility with the
// original FlyLab page: "sha256:" + hex over the run and trajectory ids,
// not the content.
func legacyRunHash(runs []ConditionRun) string {
	hash, err := ContentHash(runLineageOf(runs))
	if err != nil {
		panic("flylab: run lineage must be canonicalizable: " + err.Error())
	}
	return hash
}

// fnvRunHash is the runHash of batches stored before it became SHA-256.
func fnvRunHash(runs []ConditionRun) string {
	canonical, err := CanonicalJSON(runLineageOf(runs))
	if err != nil {
		panic("flylab: run lineage must be canonicalizable: " + err.Error())
	}
	h := fnv.New32a()
	h.Write(canonical)
	return "fnv1a:" + hex.EncodeToString(h.Sum(nil))
}

// verifyRunHash recomputes a stored runHash by the scheme its prefix names.
func verifyRunHash(stored string, runs []ConditionRun) (string, bool) {
	if strings.HasPrefix(stored, "fnv1a:") {
		got := fnvRunHash(runs)
		return got, got == stored
	}
	got := legacyRunHash(runs)
	return got, got == stored
}

func runLineageOf(runs []ConditionRun) []runLineage {
	var lineage []runLineage // nil when empty, as the fnv1a batches were hashed
	for _, cr := range runs {
		for _, r := range cr.Replicates {
			lineage = append(lineage, runLineage{RunID: r.ID, TrajectoryID: r.TrajectoryID})
		}
	}
	return lineage
}
