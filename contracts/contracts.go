// Package contracts embeds the three agent-facing contracts Gatehouse speaks,
// exactly as they were handed over, and compiles their JSON Schemas once at
// startup. The copies in this folder are what ships; they are the authority
// for every tool name, schema and rule the API enforces.
package contracts

import (
	_ "embed"
)

// FlyLabContractFile is the FlyLab WebMCP tool contract (8 tools).
//
//go:embed flylab-webmcp-contracts.v3.json
var FlyLabContractFile []byte

// ResearchContractFile is the research tool contract (54 dotted tools).
//
//go:embed merv-mcp-tool-contract.md
var ResearchContractFile []byte

// FlywheelSchemaFile is the flywheel wire contract, a JSON Schema 2020-12.
//
//go:embed flywheel-1.schema.json
var FlywheelSchemaFile []byte

// FlywheelSchemaID is the $id of the flywheel schema.
const FlywheelSchemaID = "https://schemas.percepteye.ai/flywheel/1.json"
