package flywheel

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// holdNoticesChunk bounds the keys one HoldNotices statement names on
// SQLite (three parameters each, under its limit).
const holdNoticesChunk = 1000

// HoldNotices moves the due time of each of the notices keys names to
// until, unless it is later already, and returns how many moved: the
// process whose queue holds them is about to send them, so no other
// process's reconciler should take them (DueNotices) while it does. A
// process that dies stops holding them, and they fall due at until.
func HoldNotices(ctx context.Context, db *gorm.DB, keys []NoticeKey, until time.Time) (int64, error) {
	until = dbTime(until)
	db = db.WithContext(ctx)
	if db.Dialector.Name() == "postgres" {
		res, err := execOnNoticeKeys(db, "UPDATE flywheel_notices SET due_at = $4 WHERE "+noticeKeysPostgres+" AND due_at < $4", keys, until)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
	return holdNoticesListed(db, keys, until)
}

// holdNoticesListed is HoldNotices naming the keys in IN lists of rows,
// holdNoticesChunk a statement (SQLite).
func holdNoticesListed(db *gorm.DB, keys []NoticeKey, until time.Time) (int64, error) {
	var held int64
	for start := 0; start < len(keys); start += holdNoticesChunk {
		chunk := keyRows(keys[start:min(start+holdNoticesChunk, len(keys))])
		res := db.Model(&Notice{}).Where("(rollout_id, epoch, kind) IN ? AND due_at < ?", chunk, until).Update("due_at", until)
		if res.Error != nil {
			return held, res.Error
		}
		held += res.RowsAffected
	}
	return held, nil
}
