package research

// Registered names of the reflection workflow and its activities. The
// reflection workflow reuses the experiment's transition update, state
// query and artifact/review signal names with its own payloads.
const (
	// ReflectionWorkflowName is the registered workflow type.
	ReflectionWorkflowName = "research.Reflection"
	// ReflectionIDPrefix starts every reflection workflow ID.
	ReflectionIDPrefix = "research-reflection/"
	// ProposalSubmittedSignal reports a stored consolidation proposal.
	ProposalSubmittedSignal = "proposal-submitted"
	// RecordReflectionActivity mirrors status and gate into the database.
	RecordReflectionActivity = "research.RecordReflection"
	// StoreReflectionFinalActivity stores the state a wave ended with,
	// which reads are served from once its workflow closed.
	StoreReflectionFinalActivity = "research.StoreReflectionFinal"
	// AdvanceCentralActivity compare-and-swaps the project's central ref.
	AdvanceCentralActivity = "research.AdvanceCentral"
	// PublishReflectionActivity applies a published wave's change spec.
	PublishReflectionActivity = "research.PublishReflection"
	// KindReflection is the GatehouseKind search attribute value.
	KindReflection = "research-reflection"
)

// ReflectionWorkflowID returns the workflow ID of a reflection wave.
func ReflectionWorkflowID(reflectionID string) string { return ReflectionIDPrefix + reflectionID }
