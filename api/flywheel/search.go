package flywheel

import (
	"go.temporal.io/sdk/temporal"

	"github.com/gatehouse/gatehouse/workflows/platform"
)

// temporalSearch makes rollout workflows findable as GatehouseKind=rollout
// from the moment they start.
func temporalSearch() temporal.SearchAttributes {
	return temporal.NewSearchAttributes(platform.KindKey.ValueSet("rollout"), platform.GateKey.ValueSet("queued"))
}
