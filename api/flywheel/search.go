package flywheel

import (
	"go.temporal.io/sdk/temporal"

	"github.com/gatehouse/gatehouse/workflows/platform"
)

// temporalSearch makes rollout workflows findable as GatehouseKind=rollout
// from the moment they start. A rollout shows no GatehouseGate: its lease
// state lives in the database (wf.RolloutInput.QuietVisibility).
func temporalSearch() temporal.SearchAttributes {
	return temporal.NewSearchAttributes(platform.KindKey.ValueSet("rollout"))
}
