package contracts

import (
	"encoding/json"
	"fmt"
	"net/url"
)

// FlyLabContract is the parsed FlyLab contract: the parts the server needs
// by name, plus every tool's raw input schema kept byte for byte.
type FlyLabContract struct {
	SchemaVersion string          `json:"schema_version"`
	Name          string          `json:"name"`
	Discovery     FlyLabDiscovery `json:"discovery"`
	Tools         []FlyLabTool    `json:"tools"`
	Raw           json.RawMessage `json:"-"`
}

// FlyLabDiscovery is the contract's discovery block: where the published
// documents live. Gatehouse serves them at the same paths under its own
// public URL.
type FlyLabDiscovery struct {
	BrowserDocumentationURL string `json:"browser_documentation_url"`
	ManifestURL             string `json:"manifest_url"`
	ContractURL             string `json:"contract_url"`
	EvidenceExportSchemaURL string `json:"evidence_export_schema_url"`
	EvidenceExportMediaType string `json:"evidence_export_media_type"`
}

// EvidenceExportSchemaPath is the path of the contract's
// evidence_export_schema_url (the contract names the original site's host).
func (d FlyLabDiscovery) EvidenceExportSchemaPath() (string, error) {
	u, err := url.Parse(d.EvidenceExportSchemaURL)
	if err != nil || u.Path == "" {
		return "", fmt.Errorf("flylab contract: evidence_export_schema_url %q has no path", d.EvidenceExportSchemaURL)
	}
	return u.Path, nil
}

// FlyLabTool is one tool of the FlyLab contract.
type FlyLabTool struct {
	Name           string          `json:"name"`
	Title          string          `json:"title"`
	Description    string          `json:"description"`
	Annotations    map[string]any  `json:"annotations"`
	InputSchema    json.RawMessage `json:"input_schema"`
	OutputContract json.RawMessage `json:"output_contract"`
}

// ParseFlyLab parses the embedded FlyLab contract.
func ParseFlyLab() (*FlyLabContract, error) {
	var c FlyLabContract
	if err := json.Unmarshal(FlyLabContractFile, &c); err != nil {
		return nil, fmt.Errorf("flylab contract: %w", err)
	}
	c.Raw = FlyLabContractFile
	return &c, nil
}

// CompileFlyLabInputs compiles every FlyLab tool's input schema, by name.
func CompileFlyLabInputs(c *FlyLabContract) (map[string]*Schema, error) {
	out := make(map[string]*Schema, len(c.Tools))
	for _, t := range c.Tools {
		s, err := CompileJSON("https://gatehouse.local/flylab/tools/"+t.Name+"/input.json", t.InputSchema)
		if err != nil {
			return nil, err
		}
		out[t.Name] = s
	}
	return out, nil
}
