package flywheel_test

import (
	"testing"
	"time"

	"gorm.io/gorm"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestClaim_OnPostgresCommitsItsOwnTransactionAsynchronously: inside a
// claim's transaction synchronous_commit is off (the claim does not wait
// for its WAL to be flushed), and once that transaction ends the session
// is back to the server's setting, so the output or cancel it runs next
// still commits synchronously.
func TestClaim_OnPostgresCommitsItsOwnTransactionAsynchronously(t *testing.T) {
	t.Parallel()
	db := modelstest.Postgres(t)
	if db == nil {
		t.Skip("GATEHOUSE_TEST_DATABASE_URL not set: needs PostgreSQL (CI sets it)")
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(1) // one session: the setting after is the claim's session's
	now := time.Now()
	enqueue(t, db, now.Add(time.Hour), 3)
	var inside, after string
	err = db.Transaction(func(tx *gorm.DB) error {
		gs, err := fw.Claim(ctx, tx, fw.Claimant{CredentialID: "c", AllProjects: true}, 1, time.Minute, now)
		if err != nil || len(gs) != 1 {
			t.Fatalf("claim: %v, %d leased", err, len(gs))
		}
		return tx.Raw("SHOW synchronous_commit").Scan(&inside).Error
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Raw("SHOW synchronous_commit").Scan(&after).Error; err != nil {
		t.Fatal(err)
	}
	if inside != "off" || after == "off" {
		t.Fatalf("synchronous_commit inside the claim's transaction %q, after it %q; want off, then the server's setting", inside, after)
	}
}
