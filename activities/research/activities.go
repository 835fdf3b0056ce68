// Package research holds the research domain's activities: thin database
// writes the experiment workflow makes, each idempotent.
package research

import (
	"context"

	"gorm.io/gorm"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// Activities are the research activities bound to their dependencies.
type Activities struct {
	DB *gorm.DB
}

// RecordExperiment mirrors an experiment's status and gate into its row;
// keyed by the workflow's revision, so a retry writes nothing twice.
func (a *Activities) RecordExperiment(ctx context.Context, rec wf.ExperimentRecord) error {
	return models.MirrorExperiment(ctx, a.DB, rec.ExperimentID, string(rec.Status), rec.Gate, rec.NextAction,
		rec.Attempt, rec.Revision, rec.Conclusion, rec.Status.Terminal())
}
