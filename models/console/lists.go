package console

import (
	"context"

	"gorm.io/gorm"

	flylab "github.com/gatehouse/gatehouse/models/flylab"
	flywheel "github.com/gatehouse/gatehouse/models/flywheel"
	research "github.com/gatehouse/gatehouse/models/research"
)

// The console's list queries: one page of rollouts, FlyLab sessions or
// research experiments, newest first, filtered. Filter values are user
// input and only ever bound as parameters; an empty value does not filter.

// RolloutStateCancelled is the console's state for rollouts an operator
// cancelled: excluded rollouts with the cancelled exclusion reason.
const RolloutStateCancelled = "cancelled"

// RolloutStates are the states the rollout list filters on.
var RolloutStates = []string{flywheel.StatusQueued, flywheel.StatusLeased, flywheel.StatusCompleted,
	flywheel.StatusExcluded, RolloutStateCancelled}

// RolloutFilter narrows the rollout list.
type RolloutFilter struct {
	// State is one of RolloutStates.
	State string
	// Owner is the rollout's owner exactly as enqueued.
	Owner string
}

// ListRollouts returns one page of rollouts and the next page's cursor.
func ListRollouts(ctx context.Context, db *gorm.DB, f RolloutFilter, p Page) ([]flywheel.Rollout, *Cursor, error) {
	const t = "flywheel_rollouts"
	q := db.WithContext(ctx).Table(t)
	switch f.State {
	case "":
	case RolloutStateCancelled:
		q = q.Where(t+".exclusion_reason = ?", "cancelled")
	default:
		q = q.Where(t+".status = ?", f.State)
	}
	if f.Owner != "" {
		q = q.Where(t+".owner = ?", f.Owner)
	}
	var rows []flywheel.Rollout
	if err := p.keyset(q, t).Find(&rows).Error; err != nil {
		return nil, nil, err
	}
	rows, next := cut(p, rows, func(r flywheel.Rollout) Cursor { return Cursor{CreatedAt: r.CreatedAt, ID: r.ID} })
	return rows, next, nil
}

// FlyLab session gates, as the session workflow names them in its
// GatehouseGate search attribute.
const (
	SessionGateOpen             = "open"
	SessionGateAwaitingApproval = "awaiting_approval"
	SessionGateSaved            = "saved"
)

// SessionGates are the gates the session list filters on.
var SessionGates = []string{SessionGateOpen, SessionGateAwaitingApproval, SessionGateSaved}

// sessionGateSQL derives a session's gate from the mirrored records the way
// the session workflow does: saved once a published bundle exists, awaiting approval
// while an experiment waits for the operator, open otherwise.
const sessionGateSQL = `CASE
 WHEN EXISTS (SELECT 1 FROM flylab_evidence_bundles b WHERE b.session_id = flylab_sessions.id AND NOT b.staged) THEN 'saved'
 WHEN EXISTS (SELECT 1 FROM flylab_experiments e WHERE e.session_id = flylab_sessions.id AND e.status = 'awaiting_approval') THEN 'awaiting_approval'
 ELSE 'open' END`

// SessionFilter narrows the FlyLab session list.
type SessionFilter struct {
	// OwnerKey is the credential id of the agent key that owns the session.
	OwnerKey string
	// Gate is one of SessionGates.
	Gate string
}

// SessionRow is a FlyLab session with its derived gate.
type SessionRow struct {
	flylab.Session
	Gate string
}

// ListFlyLabSessions returns one page of FlyLab sessions and the next
// page's cursor.
func ListFlyLabSessions(ctx context.Context, db *gorm.DB, f SessionFilter, p Page) ([]SessionRow, *Cursor, error) {
	const t = "flylab_sessions"
	q := db.WithContext(ctx).Table(t).Select(t + ".*, " + sessionGateSQL + " AS gate")
	if f.OwnerKey != "" {
		q = q.Where(t+".owner_credential_id = ?", f.OwnerKey)
	}
	if f.Gate != "" {
		q = q.Where("("+sessionGateSQL+") = ?", f.Gate)
	}
	var rows []SessionRow
	if err := p.keyset(q, t).Find(&rows).Error; err != nil {
		return nil, nil, err
	}
	rows, next := cut(p, rows, func(r SessionRow) Cursor { return Cursor{CreatedAt: r.CreatedAt, ID: r.ID} })
	return rows, next, nil
}

// ExperimentFilter narrows the research experiment list.
type ExperimentFilter struct {
	// Project is the experiment's project id.
	Project string
	// Gate is the experiment's current gate as the workflow mirrored it.
	Gate string
}

// ListResearchExperiments returns one page of research experiments and the
// next page's cursor.
func ListResearchExperiments(ctx context.Context, db *gorm.DB, f ExperimentFilter, p Page) ([]research.Experiment, *Cursor, error) {
	const t = "research_experiments"
	q := db.WithContext(ctx).Table(t)
	if f.Project != "" {
		q = q.Where(t+".project_id = ?", f.Project)
	}
	if f.Gate != "" {
		q = q.Where(t+".gate = ?", f.Gate)
	}
	var rows []research.Experiment
	if err := p.keyset(q, t).Find(&rows).Error; err != nil {
		return nil, nil, err
	}
	rows, next := cut(p, rows, func(e research.Experiment) Cursor { return Cursor{CreatedAt: e.CreatedAt, ID: e.ID} })
	return rows, next, nil
}
