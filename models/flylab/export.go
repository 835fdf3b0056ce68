package flylab

import (
	_ "embed"
	"encoding/json"
)

// Evidence export constants (the contract's discovery block).
const (
	ExportSchemaName    = "flylab.evidence-export"
	ExportSchemaVersion = 3
	ExportMediaType     = "application/vnd.flylab.evidence+json"
	ExportSchemaPath    = "/schemas/flylab-evidence-export-v3.schema.json"
	ExportSerialization = "SHA-256(RFC 8785 JCS(payload))"
	FormatExperiment    = "flylab.experiment-evidence-bundle.v3"
	FormatMission       = "flylab.mission-evidence-bundle.v3"
)

// ExportSchema is the published JSON Schema (draft 2020-12) every
// evidence export validates against.
//
//go:embed export_schema.json
var ExportSchema []byte

// Export is the portable evidence-export envelope.
type Export struct {
	Schema        string         `json:"schema"`
	SchemaVersion int            `json:"schemaVersion"`
	Bundle        ExportBundle   `json:"bundle"`
	Integrity     Integrity      `json:"integrity"`
	Payload       map[string]any `json:"payload"`
}

// ExportBundle is the bundle metadata outside the hashed payload.
type ExportBundle struct {
	ID           string   `json:"id"`
	ArtifactType string   `json:"artifact_type"`
	Title        string   `json:"title"`
	TitleSource  string   `json:"titleSource"`
	Scope        string   `json:"scope"`
	Format       string   `json:"format"`
	CreatedAt    string   `json:"createdAt"`
	PageSession  string   `json:"pageSessionId"`
	HypothesisID string   `json:"hypothesisId"`
	ExperimentID string   `json:"experimentId"`
	BatchIDs     []string `json:"batchIds"`
	AnalysisIDs  []string `json:"analysisIds"`
	ComparisonID string   `json:"comparisonId"`
	ManifestHash string   `json:"manifestHash"`
	Provenance   []string `json:"provenance"`
}

// Integrity states what manifestHash covers and how it was computed.
type Integrity struct {
	ManifestHash  string `json:"manifestHash"`
	Scope         string `json:"scope"`
	Serialization string `json:"serialization"`
	Assurance     string `json:"assurance"`
}

// DecodeExport parses a stored export.
func DecodeExport(raw string) (Export, error) {
	var e Export
	return e, json.Unmarshal([]byte(raw), &e)
}
