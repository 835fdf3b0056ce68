// Package platform holds the workflows and workflow-side definitions every
// domain shares: Gatehouse's custom search attributes and the ping workflow
// that proves the stack end to end.
package platform

import (
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
)

// Search attribute keys that make Gatehouse workflows findable in the
// Temporal UI ("GatehouseKind = 'flylab-experiment'").
var (
	// ProjectKey is the project (or FlyLab session) a workflow belongs to.
	ProjectKey = temporal.NewSearchAttributeKeyKeyword("GatehouseProject")
	// GateKey is the gate a workflow currently waits at.
	GateKey = temporal.NewSearchAttributeKeyKeyword("GatehouseGate")
	// KindKey is the workflow's kind, e.g. "rollout".
	KindKey = temporal.NewSearchAttributeKeyKeyword("GatehouseKind")
)

// SearchAttributes lists the custom search attributes to register in the
// namespace, by name and type.
func SearchAttributes() map[string]enumspb.IndexedValueType {
	return map[string]enumspb.IndexedValueType{
		ProjectKey.GetName(): enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		GateKey.GetName():    enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		KindKey.GetName():    enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	}
}
