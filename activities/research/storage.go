package research

import (
	"context"
	"log/slog"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// StorageActivities are the storage sweep's activities.
type StorageActivities struct {
	DB    *gorm.DB
	Blobs blobstore.Store
	Log   *slog.Logger
}

// SweepStorage expires one batch of objects due at in.Now and deletes the
// bytes no live object references. A retry finds the rows already expired
// and deletes already-deleted keys, which is not an error: it is idempotent.
func (a *StorageActivities) SweepStorage(ctx context.Context, in wf.SweepInput) (wf.SweepResult, error) {
	n, reclaim, err := models.SweepExpired(ctx, a.DB, in.Now, in.Limit)
	if err != nil {
		return wf.SweepResult{}, err
	}
	out := wf.SweepResult{Expired: n}
	for _, key := range reclaim {
		if err := a.Blobs.Delete(ctx, key); err != nil {
			return out, err
		}
		out.Reclaimed++
	}
	return out, nil
}
