package contracts

import (
	"encoding/json"
	"fmt"
)

// FlyLabContract is the parsed FlyLab contract: the parts the server needs
// by name, plus every tool's raw input schema kept byte for byte.
type FlyLabContract struct {
	SchemaVersion string          `json:"schema_version"`
	Name          string          `json:"name"`
	Tools         []FlyLabTool    `json:"tools"`
	Raw           json.RawMessage `json:"-"`
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
