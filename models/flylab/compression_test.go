package flylab_test

import (
	"context"
	"strings"
	"testing"

	fl "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestStoredPayloads_AreCompressedWithLZ4OnPostgreSQL: a tool result of
// tens of kilobytes and a session snapshot are compressed with lz4 (cheap
// on every write and read), not pglz, when the server has lz4.
func TestStoredPayloads_AreCompressedWithLZ4OnPostgreSQL(t *testing.T) {
	t.Parallel()
	db := modelstest.Postgres(t)
	if db == nil {
		t.Skip("needs GATEHOUSE_TEST_DATABASE_URL")
	}
	var hasLZ4 bool
	db.Raw(`SELECT bool_or('lz4' = ANY(enumvals)) FROM pg_settings WHERE name = 'default_toast_compression'`).Scan(&hasLZ4)
	if !hasLZ4 {
		t.Skip("this PostgreSQL was built without lz4")
	}
	ctx := context.Background()
	big := map[string]any{"circuits": strings.Repeat(`{"neuron":"ORN_DM1","weight":0.25},`, 1500)}
	if err := fl.PutToolResult(ctx, db, "s/find/rev-1", "s", "find_fly_circuits", big); err != nil {
		t.Fatal(err)
	}
	if err := fl.SaveSnapshot(ctx, db, "s", 1, []byte(`{"search":"`+strings.Repeat("ORN_DM1 ", 5000)+`"}`)); err != nil {
		t.Fatal(err)
	}
	for table, column := range map[string]string{"flylab_tool_results": "data", "flylab_session_snapshots": "state"} {
		var method string
		if err := db.Raw("SELECT COALESCE(pg_column_compression(" + column + "), 'none') FROM " + table + " LIMIT 1").Scan(&method).Error; err != nil {
			t.Fatal(err)
		}
		if method != "lz4" {
			t.Errorf("%s.%s is compressed with %s, want lz4", table, column, method)
		}
	}
}
