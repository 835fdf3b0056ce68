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
	for _, st := range []struct {
		name, sql string
		args      map[string]any
	}{
		{"output", acceptOutputPostgres, map[string]any{"now": now, "id": h.RolloutID, "key": Hash(h.APIKey),
			"token": Hash(h.LeaseToken), "leased": StatusLeased, "body_sha256": "x", "final_text": "", "tool_calls": nil,
			"omitted": 0, "llm_call_count": nil, "artifacts": nil, "reward": nil, "success": nil, "exclusion_reason": nil,
			"exclusion_detail": nil, "events": nil, "timing": nil, "agent_fingerprint": nil, "tool_call_landed": nil,
			"output": NoticeOutput, "grant": NoticeGrant, "due": now}},
		{"due notices", dueNoticesPostgres, map[string]any{"next": now, "now": now, "limit": 10, "leased": StatusLeased}},
	} {
		rows, err := db.Raw("EXPLAIN "+st.sql, st.args).Rows()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		plans[st.name] = planText(t, rows)
	}
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
