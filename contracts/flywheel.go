package contracts

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Flywheel holds the compiled definitions of the flywheel wire contract.
// Each is compiled from the embedded schema by reference, never re-typed.
type Flywheel struct {
	// ProductionTurnBatch validates POST /flywheel/turns bodies.
	ProductionTurnBatch *Schema
	// RolloutOutput validates POST /flywheel/rollouts/:id/output bodies.
	RolloutOutput *Schema
	// ClaimResponse validates what POST /flywheel/claim answers.
	ClaimResponse *Schema
	// RolloutRequest validates one leased rollout.
	RolloutRequest *Schema
}

// CompileFlywheel compiles the flywheel schema's definitions.
func CompileFlywheel() (*Flywheel, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(FlywheelSchemaFile))
	if err != nil {
		return nil, fmt.Errorf("flywheel schema: %w", err)
	}
	c := NewCompiler()
	if err := c.AddResource(FlywheelSchemaID, doc); err != nil {
		return nil, fmt.Errorf("flywheel schema: %w", err)
	}
	def := func(name string) (*Schema, error) {
		s, err := c.Compile(FlywheelSchemaID + "#/$defs/" + name)
		if err != nil {
			return nil, fmt.Errorf("flywheel schema %s: %w", name, err)
		}
		return &Schema{compiled: s}, nil
	}
	var f Flywheel
	for name, dst := range map[string]**Schema{
		"ProductionTurnBatch": &f.ProductionTurnBatch,
		"RolloutOutput":       &f.RolloutOutput,
		"ClaimResponse":       &f.ClaimResponse,
		"RolloutRequest":      &f.RolloutRequest,
	} {
		if *dst, err = def(name); err != nil {
			return nil, err
		}
	}
	return &f, nil
}
