package flywheel

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
)

// TestRowStatements_FindTheRowByItsPrimaryKeyWhateverTheStatisticsSay:
// with the statistics taken while every rollout was queued and every one
// leased since (a claim burst after an enqueue), the heartbeat, the
// output, the notice and the grant-revert statements still find their
// rollout by its primary key, not by walking the claim index's leased
// entries.
func TestRowStatements_FindTheRowByItsPrimaryKeyWhateverTheStatisticsSay(t *testing.T) {
	t.Parallel()
	db := freshPostgresSchema(t)
	holders := leaseAll(t, db, 1000, func() {
		if err := db.Exec("ANALYZE flywheel_rollouts").Error; err != nil {
			t.Fatal(err)
		}
	})
	h := holders[len(holders)/2]
	now := dbTime(time.Now())
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := sqlDB.Query("EXPLAIN "+heartbeatPostgres, now, h.RolloutID, Hash(h.APIKey), Hash(h.LeaseToken), StatusLeased)
	if err != nil {
		t.Fatal(err)
	}
	plans := map[string]string{"heartbeat": planText(t, rows)}
	beats := []*waitingBeat{waitingBeatOf(h, now), waitingBeatOf(holders[0], now)}
	if rows, err = sqlDB.Query("EXPLAIN "+heartbeatsPostgres, heartbeatsArgs(beats)...); err != nil {
		t.Fatalf("heartbeats: %v", err)
	}
	plans["heartbeats"] = planText(t, rows)
	rows, err = sqlDB.Query("EXPLAIN "+acceptOutputPostgres, outputArgs(h, Output{BodySHA256: "x"}, now)...)
	if err != nil {
		t.Fatal(err)
	}
	plans["output"] = planText(t, rows)
	if rows, err = db.Raw("EXPLAIN "+dueNoticesPostgres, dueNoticesArgs(now, now, 10)).Rows(); err != nil {
		t.Fatalf("due notices: %v", err)
	}
	plans["due notices"] = planText(t, rows)
	revert := db.ToSQL(func(tx *gorm.DB) *gorm.DB { return revertGrantUpdate(tx, h.RolloutID, 1, now) })
	rows, err = sqlDB.Query("EXPLAIN " + revert)
	if err != nil {
		t.Fatalf("revert grant: %v\n%s", err, revert)
	}
	plans["revert grant"] = planText(t, rows)
	for name, plan := range plans {
		if !strings.Contains(plan, "flywheel_rollouts_pkey") || strings.Contains(plan, "idx_flywheel_rollouts_claim") {
			t.Errorf("%s does not find its rollout by primary key alone:\n%s", name, plan)
		}
	}
}

// planText joins the lines of an EXPLAIN.
func planText(t *testing.T, rows *sql.Rows) string {
	t.Helper()
	defer func() { _ = rows.Close() }()
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		b.WriteString(line + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
