package research

import (
	"context"
	"encoding/json"

	"gorm.io/gorm"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// StoreExperimentFinal stores the state an experiment ended with, keyed by
// its workflow ID: a retry finds the row and writes nothing twice.
func (a *Activities) StoreExperimentFinal(ctx context.Context, st wf.ExperimentState) error {
	return storeFinal(ctx, a.DB, wf.ExperimentWorkflowID(st.ExperimentID), models.FinalKindExperiment, st.Revision, st)
}

// StoreReflectionFinal stores the state a reflection wave ended with,
// keyed by its workflow ID: a retry finds the row and writes nothing twice.
func (a *ReflectionActivities) StoreReflectionFinal(ctx context.Context, st wf.ReflectionState) error {
	return storeFinal(ctx, a.DB, wf.ReflectionWorkflowID(st.ReflectionID), models.FinalKindReflection, st.Revision, st)
}

func storeFinal(ctx context.Context, db *gorm.DB, workflowID, kind string, rev int, st any) error {
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return models.StoreFinalState(ctx, db, models.WorkflowFinalState{WorkflowID: workflowID, Kind: kind, Revision: rev, StateJSON: string(raw)})
}
