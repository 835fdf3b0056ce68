package console

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	science "github.com/gatehouse/gatehouse/flylab"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
)

// The evidence half of the FlyLab adapter reads the append-only evidence
// ledger (models/flylab EvidenceBundle rows); the stored export is what the
// plots draw and what the download returns, byte for byte.

// EvidenceBundles lists saved bundles, newest first.
func (f *flylabSource) EvidenceBundles(ctx context.Context) ([]EvidenceSummary, error) {
	var rows []flymodels.EvidenceBundle
	if err := f.db.WithContext(ctx).Where("staged = ?", false).Order("created_at DESC").Limit(200).Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]EvidenceSummary, 0, len(rows))
	for _, r := range rows {
		s := EvidenceSummary{ID: r.ID, CreatedAt: r.CreatedAt}
		if ex, err := flymodels.DecodeExport(r.Export); err == nil {
			s.Title, s.ExperimentID = ex.Bundle.Title, ex.Bundle.ExperimentID
		}
		out = append(out, s)
	}
	return out, nil
}

// exportPayload is the part of the export payload the console plots.
type exportPayload struct {
	Batch struct {
		ConditionRuns []science.ConditionRun `json:"conditionRuns"`
	} `json:"batch"`
	Analyses []science.Analysis `json:"analyses"`
}

// EvidenceBundle reads one bundle's trajectories and metric panel.
func (f *flylabSource) EvidenceBundle(ctx context.Context, id string) (EvidenceBundle, error) {
	row, err := f.bundle(ctx, id)
	if err != nil {
		return EvidenceBundle{}, err
	}
	ex, err := flymodels.DecodeExport(row.Export)
	if err != nil {
		return EvidenceBundle{}, err
	}
	b := EvidenceBundle{SessionID: ex.Bundle.PageSession, ManifestHash: ex.Bundle.ManifestHash,
		EvidenceSummary: EvidenceSummary{ID: row.ID, Title: ex.Bundle.Title, ExperimentID: ex.Bundle.ExperimentID, CreatedAt: row.CreatedAt}}
	if t, err := time.Parse(time.RFC3339, ex.Bundle.CreatedAt); err == nil {
		b.CreatedAt = t
	}
	raw, err := json.Marshal(ex.Payload)
	if err != nil {
		return b, err
	}
	var p exportPayload
	if err := json.Unmarshal(raw, &p); err != nil {
		return b, err
	}
	b.Runs = bundleRuns(p.Batch.ConditionRuns)
	if len(p.Analyses) > 0 {
		b.Metrics = bundleMetrics(p.Analyses[0])
	}
	return b, nil
}

// bundleRuns turns each replicate's trajectory into a plotted run.
func bundleRuns(crs []science.ConditionRun) []Run {
	var runs []Run
	for _, cr := range crs {
		for _, rep := range cr.Replicates {
			tr := rep.Trajectory
			n := min(len(tr.XMm), len(tr.YMm))
			r := Run{ID: rep.ID, Condition: cr.ConditionID, Seed: rep.Seed, Points: make([]Point, 0, n)}
			for i := 0; i < n; i++ {
				r.Points = append(r.Points, Point{X: tr.XMm[i], Y: tr.YMm[i]})
			}
			runs = append(runs, r)
		}
	}
	return runs
}

// bundleMetrics is the first analysis' panel: each metric's mean per
// condition (conditions whose mean is undefined are left out).
func bundleMetrics(a science.Analysis) []Metric {
	var out []Metric
	for _, id := range a.Metrics {
		m := Metric{ID: id}
		for _, c := range a.Conditions {
			for _, ms := range c.Metrics {
				if ms.Metric != id || ms.Mean == nil {
					continue
				}
				m.Unit = ms.Unit
				m.Values = append(m.Values, ConditionValue{Condition: c.ConditionID, Value: *ms.Mean})
			}
		}
		out = append(out, m)
	}
	return out
}

// EvidenceExport returns the stored export exactly as saved.
func (f *flylabSource) EvidenceExport(ctx context.Context, id string) (Export, error) {
	row, err := f.bundle(ctx, id)
	if err != nil {
		return Export{}, err
	}
	return Export{Filename: row.ID + ".flylab-evidence.json", MediaType: flymodels.ExportMediaType, Body: []byte(row.Export)}, nil
}

func (f *flylabSource) bundle(ctx context.Context, id string) (flymodels.EvidenceBundle, error) {
	row, err := flymodels.BundleByID(ctx, f.db, id)
	if errors.Is(err, flymodels.ErrNotFound) {
		return row, ErrNotFound
	}
	return row, err
}
