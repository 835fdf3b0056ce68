package research

import (
	"context"
	"errors"
	"slices"

	"go.temporal.io/api/serviceerror"
	"gorm.io/gorm"

	models "github.com/gatehouse/gatehouse/models/research"
)

// closedTransitionError answers a transition sent to a workflow that has
// closed. A workflow only closes after its last state was mirrored to the
// database, so a terminal row there gets the same gate_blocked answer the
// gate table gives while the workflow is still open; anything else is a
// conflict (the workflow is missing).
func closedTransitionError(ctx context.Context, db *gorm.DB, err error, kind, id string) error {
	var nf *serviceerror.NotFound
	if !errors.As(err, &nf) {
		return nil
	}
	var status string
	switch kind {
	case "experiment":
		var e models.Experiment
		if db.WithContext(ctx).Select("status").Where("id = ?", id).Take(&e).Error == nil && !slices.Contains(models.OpenStatuses, e.Status) {
			status = e.Status
		}
	case "reflection":
		var r models.Reflection
		if db.WithContext(ctx).Select("status").Where("id = ?", id).Take(&r).Error == nil && (r.Status == "published" || r.Status == "abandoned") {
			status = r.Status
		}
	}
	if status == "" {
		return toolErr("conflict", "/"+kind+"_id", "the %s's workflow is finished or missing", kind)
	}
	return &ToolError{Code: "gate_blocked", Pointer: "/transition", Message: "the " + kind + " is " + status + "; no transition leaves it",
		Details: map[string]any{"current_gate": "terminal", "allowed_transitions": []string{}}}
}
