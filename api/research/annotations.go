package research

import "github.com/modelcontextprotocol/go-sdk/mcp"

// toolHints are a research tool's MCP behaviour hints beside readOnlyHint
// (which the catalogue's ReadOnly states). MCP's defaults are the
// cautious ones (destructive, not idempotent, open world), so every tool
// states all three:
//   - Destructive: the call may overwrite or remove what exists (an edit,
//     a delete, a transition that can abandon); false means it only adds.
//   - Idempotent: the same arguments again change nothing more (an
//     idempotency key, a compare-and-swap, a record kept once, a set).
//   - OpenWorld: the call reaches beyond Gatehouse's own database, Temporal
//     and blob store: a sandbox provider or machine, an MLflow server.
type toolHints struct {
	Destructive, Idempotent, OpenWorld bool
}

// reads are read-only tools inside Gatehouse; sandboxReads read a sandbox
// machine or its provider.
var (
	reads        = toolHints{Idempotent: true}
	sandboxReads = toolHints{Idempotent: true, OpenWorld: true}
)

// researchHints is keyed by the dotted tool name; a test checks it covers
// the whole catalogue and agrees with ReadOnly.
var researchHints = map[string]toolHints{
	"workflow.status_and_next": reads,

	"project":        {Idempotent: true}, // create is idempotent on the name
	"project.list":   reads,
	"project.get":    reads,
	"project.update": {Destructive: true, Idempotent: true}, // replaces the description

	"experiment.create":     {Idempotent: true},  // one experiment per folder name
	"experiment.transition": {Destructive: true}, // may abandon or send back; a repeat may move again
	"experiment.exhibit":    reads,
	"experiment.list":       reads,
	"experiment.get_state":  reads,

	"artifact.submit": {}, // each call registers a new artifact and upload token
	"artifact.find":   reads,

	"claim.create": {},                                    // each call records a new claim
	"claim.update": {Destructive: true, Idempotent: true}, // sets status or confidence
	"claim.list":   reads,

	"candidate.submit":  {Idempotent: true}, // idempotency_key
	"candidate.stage":   {},                 // each call records a new stage row
	"candidate.promote": {Idempotent: true}, // compare-and-swap on expected_champion_id; history append-only
	"candidate.list":    reads,

	"review.request": {}, // a new request and capability each call
	"review.start":   {},
	"review.submit":  {Idempotent: true}, // a verdict is recorded once
	"review.status":  reads,

	"reflection.create":     {},
	"reflection.transition": {Destructive: true}, // abandon ends the wave
	"reflection.get":        reads,
	"reflection.list":       reads,
	"consolidation.submit":  {Idempotent: true}, // one immutable proposal per attempt
	"consolidation.get":     reads,

	"litreview.view": reads,
	"litreview.edit": {Destructive: true}, // edit, delete, reorder; idempotency_key is optional
	"litreview.cite": {Idempotent: true},  // a paper already cited is a duplicate, not a second entry

	"feed.register": {Destructive: true, Idempotent: true}, // register or update the handle's bio
	"feed.post":     {},                                    // idempotency_key is optional
	"feed.list":     reads,

	"storage.submit":          {Idempotent: true}, // same name + digest is the same object
	"storage.fetch":           reads,              // mints a download URL, changes no object
	"storage.find":            reads,
	"storage.object":          {Destructive: true}, // delete; renew moves the expiry each time
	"storage.put_object":      {},                  // a fresh signed upload URL each call
	"storage.complete_upload": {Idempotent: true},

	"sandbox.options":      reads,
	"sandbox.health":       sandboxReads,
	"sandbox.request":      {OpenWorld: true}, // provisions a machine at a provider
	"sandbox.get":          reads,
	"sandbox.list":         reads,
	"sandbox.attach":       {Idempotent: true},
	"sandbox.extend":       {}, // each call adds time
	"sandbox.runs":         sandboxReads,
	"sandbox.terminal":     sandboxReads,
	"sandbox.pull_outputs": {OpenWorld: true},                                      // copies from the machine into new objects
	"sandbox.release":      {Destructive: true, Idempotent: true, OpenWorld: true}, // destroys the machine

	"mlflow.context":      {Idempotent: true, OpenWorld: true}, // the run is created once
	"mlflow.finalize_run": {Idempotent: true, OpenWorld: true},
}

// annotationsFor is the MCP annotation set of t: readOnlyHint from the
// catalogue, the other hints from researchHints.
func annotationsFor(t *Tool) *mcp.ToolAnnotations {
	h, ok := researchHints[t.Name]
	if !ok {
		// Unlisted: keep MCP's cautious defaults (a test forbids this).
		return &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly}
	}
	return &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly, DestructiveHint: &h.Destructive, IdempotentHint: h.Idempotent, OpenWorldHint: &h.OpenWorld}
}
