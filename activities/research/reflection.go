package research

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"go.temporal.io/sdk/activity"
	"gorm.io/gorm"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// BlobOpener reads stored artifact bytes.
type BlobOpener interface {
	Open(ctx context.Context, key string) (io.ReadCloser, error)
}

// ReflectionActivities are the reflection wave's activities.
type ReflectionActivities struct {
	DB      *gorm.DB
	Blobs   BlobOpener
	Central models.CentralRefs
	// Lease is how long an advance's owner lease lasts (default 2 minutes).
	Lease time.Duration
}

// RecordReflection mirrors a wave's status and gate into its row; keyed by
// the workflow's revision, so a retry writes nothing twice.
func (a *ReflectionActivities) RecordReflection(ctx context.Context, rec wf.ReflectionRecord) error {
	return models.MirrorReflection(ctx, a.DB, rec.ReflectionID, rec.Status, rec.Gate, rec.NextAction, rec.Attempt, rec.Revision, rec.Terminal)
}

// AdvanceCentral records the advance intended under the caller's owner
// lease, compare-and-swaps the project's central ref from the proposal's
// base to its sha, and settles: observed = target ⇒ bound; observed = base
// ⇒ failed; anything else ⇒ stale. A transient error returns an error, so
// the activity is retried and the advance stays intended.
func (a *ReflectionActivities) AdvanceCentral(ctx context.Context, in wf.AdvanceInput) (wf.AdvanceResult, error) {
	lease := a.Lease
	if lease == 0 {
		lease = 2 * time.Minute
	}
	id := fmt.Sprintf("%s/%d", in.ReflectionID, in.Revision)
	rec, settled, err := models.AcquireAdvance(ctx, a.DB, models.CentralAdvance{ID: id, ProjectID: in.ProjectID, ReflectionID: in.ReflectionID,
		Revision: in.Revision, Expected: in.Expected, Target: in.Target, Owner: in.Owner}, lease, time.Now().UTC())
	if err != nil {
		return wf.AdvanceResult{}, err
	}
	if settled {
		return wf.AdvanceResult{Status: rec.Status, Observed: rec.Observed, Error: rec.Error}, nil
	}
	observed, err := a.Central.CompareAndSwap(ctx, in.ProjectID, in.Expected, in.Target)
	var res wf.AdvanceResult
	switch {
	case errors.Is(err, models.ErrPermanentAdvance):
		cur, rerr := a.Central.Read(ctx, in.ProjectID)
		if rerr != nil {
			return wf.AdvanceResult{}, rerr
		}
		res = wf.AdvanceResult{Status: models.AdvanceFailed, Observed: cur, Error: err.Error()}
	case err != nil:
		activity.RecordHeartbeat(ctx, err.Error())
		return wf.AdvanceResult{}, err
	case observed == in.Target:
		res = wf.AdvanceResult{Status: models.AdvanceBound, Observed: observed}
	case observed == in.Expected:
		res = wf.AdvanceResult{Status: models.AdvanceFailed, Observed: observed, Error: "the compare-and-swap did not apply"}
	default:
		res = wf.AdvanceResult{Status: models.AdvanceStale, Observed: observed, Error: "the central ref moved away from the proposal's base"}
	}
	if err := models.SettleAdvance(ctx, a.DB, id, in.Owner, res.Status, res.Observed, res.Error); err != nil {
		return wf.AdvanceResult{}, err
	}
	return res, nil
}

// derivedID names a row publish writes, so a retried publish writes the
// same rows.
func derivedID(prefix, reflectionID, kind string, i int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%s/%d", reflectionID, kind, i)))
	return prefix + hex.EncodeToString(sum[:12])
}

// PublishReflection applies the change spec (claim changes, follow-up
// experiment rows) and pins the project graph on the wave's row, in one
// transaction; every row is keyed by the wave, so a retry changes nothing.
func (a *ReflectionActivities) PublishReflection(ctx context.Context, in wf.PublishInput) (wf.PublishResult, error) {
	var spec rg.ChangeSpec
	var art models.Artifact
	if err := a.DB.WithContext(ctx).Where("id = ?", in.ChangeSpecID).Take(&art).Error; err != nil {
		return wf.PublishResult{}, err
	}
	rc, err := a.Blobs.Open(ctx, art.BlobKey)
	if err != nil {
		return wf.PublishResult{}, err
	}
	raw, err := io.ReadAll(io.LimitReader(rc, 1<<20))
	_ = rc.Close() // read only: a close error loses nothing
	if err != nil {
		return wf.PublishResult{}, err
	}
	spec, _ = rg.ParseChangeSpec(raw)
	res := wf.PublishResult{ClaimsCreated: []string{}, ClaimsChanged: []string{}, FollowUps: []wf.FollowUpRef{}, GraphID: in.GraphID}
	now := time.Now().UTC()
	err = a.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for i, c := range spec.ClaimChanges {
			if c.ClaimID != "" {
				up := map[string]any{"updated_at": now}
				if c.Status != "" {
					up["status"] = c.Status
				}
				if c.Confidence != "" {
					up["confidence"] = c.Confidence
				}
				r := tx.Model(&models.Claim{}).Where("id = ? AND project_id = ?", c.ClaimID, in.ProjectID).Updates(up)
				if r.Error != nil {
					return r.Error
				}
				if r.RowsAffected == 1 {
					res.ClaimsChanged = append(res.ClaimsChanged, c.ClaimID)
				}
				continue
			}
			cl := models.Claim{ID: derivedID("cl_", in.ReflectionID, "claim", i), ProjectID: in.ProjectID, Statement: c.Statement,
				Scope: c.Scope, Confidence: orDefault(c.Confidence, "medium"), Status: orDefault(c.Status, "active")}
			if err := tx.Where("id = ?", cl.ID).FirstOrCreate(&cl).Error; err != nil {
				return err
			}
			res.ClaimsCreated = append(res.ClaimsCreated, cl.ID)
		}
		for i, f := range spec.FollowUps {
			ref, holder, err := followUp(ctx, tx, in, i, f)
			if err != nil {
				return err
			}
			if holder != "" {
				res.FollowUpsSkipped = append(res.FollowUpsSkipped, wf.FollowUpSkip{Name: f.Name, ExistingExperimentID: holder,
					Reason: "an experiment of the project took this name after the change spec was checked"})
				continue
			}
			res.FollowUps = append(res.FollowUps, ref)
		}
		out, _ := json.Marshal(res)
		return tx.Model(&models.Reflection{}).Where("id = ? AND published_at IS NULL", in.ReflectionID).Updates(map[string]any{
			"published_at": now, "graph_artifact_id": in.GraphID, "doc_artifact_id": in.DocID,
			"change_spec_artifact_id": in.ChangeSpecID, "publish_json": string(out), "updated_at": now}).Error
	})
	return res, err
}

// followUp creates the i-th follow-up's row under a derived id; a name
// another experiment already holds is skipped, answering that
// experiment's id as holder.
func followUp(ctx context.Context, tx *gorm.DB, in wf.PublishInput, i int, f rg.FollowUp) (ref wf.FollowUpRef, holder string, err error) {
	id := derivedID("exp_", in.ReflectionID, "followup", i)
	plan, _ := json.Marshal(map[string]any{"created_by_reflection": in.ReflectionID, "depends_on": f.DependsOn})
	e, _, err := models.CreateExperiment(ctx, tx, models.Experiment{ID: id, ProjectID: in.ProjectID, Name: f.Name, Intent: f.Intent,
		PlanJSON: string(plan), Status: "planned"}, nil)
	if err != nil {
		return wf.FollowUpRef{}, "", err
	}
	if e.ID != id {
		return wf.FollowUpRef{}, e.ID, nil
	}
	ref = wf.FollowUpRef{ExperimentID: id, Name: f.Name, DependsOn: map[string]string{}}
	for _, d := range f.DependsOn {
		var dep models.Experiment
		if err := tx.Where("id = ? AND project_id = ?", d, in.ProjectID).Take(&dep).Error; err == nil {
			ref.DependsOn[d] = dep.Status
		}
	}
	return ref, "", nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
