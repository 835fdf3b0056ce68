package flylab

import "github.com/modelcontextprotocol/go-sdk/mcp"

// toolHints are a FlyLab tool's MCP hints beside the contract's
// readOnlyHint. Every FlyLab write only adds to the session (a hypothesis,
// a design, runs, analyses, evidence), every mutating call carries
// expected_state_revision (a repeat finds the revision moved and changes
// nothing) or an operation_id (a repeat replays the first answer), and
// everything runs on the curated index and the in-process simulator.
type toolHints struct {
	Destructive, Idempotent, OpenWorld bool
}

// flylabHints is keyed by tool name; a test checks it covers the contract.
var flylabHints = map[string]toolHints{
	"inspect_flylab_state":     {Idempotent: true},
	"find_fly_circuits":        {Idempotent: true},
	"draft_fly_hypothesis":     {Idempotent: true},
	"design_stimulation_trial": {Idempotent: true},
	"run_fly_simulation":       {Idempotent: true},
	"analyze_fly_behavior":     {Idempotent: true},
	"compare_fly_trials":       {Idempotent: true},
	"save_fly_evidence":        {Idempotent: true},
}

// annotationsFor builds a tool's MCP annotations: title and readOnlyHint
// from the contract, the other hints from flylabHints.
func annotationsFor(t *Tool) *mcp.ToolAnnotations {
	readOnly, _ := t.Annotations["readOnlyHint"].(bool)
	a := &mcp.ToolAnnotations{ReadOnlyHint: readOnly, Title: t.Title}
	if h, ok := flylabHints[t.Name]; ok {
		a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint = &h.Destructive, h.Idempotent, &h.OpenWorld
	}
	return a
}
