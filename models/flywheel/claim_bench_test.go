package flywheel

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
)

// BenchmarkClaim_Postgres isolates the database half of a claim (no HTTP,
// no Temporal): 512 queued rollouts leased in sequential batches of 16 on
// PostgreSQL, by the statement Claim runs there ("columns": the grant's
// columns scanned by position) and by that statement as it was, reading
// back every column of each leased row into GORM's reflective scan
// ("rows"). The variants take turns, each round led by the next, so a
// change of machine load hits them alike. Reports <variant>-claims/s and
// <variant>-client-cpu-us: this process's CPU per leased rollout.
// Run:
//
//	GATEHOUSE_TEST_DATABASE_URL=postgres://… go test ./models/flywheel -run '^$' -bench Claim_Postgres -benchtime 5x
func BenchmarkClaim_Postgres(b *testing.B) {
	db, _ := leasedRollouts(b, 0)
	claimInTurns(b, db, []*claimVariant{{name: "columns", claim: claimOneStatement}, {name: "rows", claim: claimReadingWholeRows}},
		false, "-client-cpu-us")
}

// returningGrant matches claimPostgres's RETURNING list.
var returningGrant = regexp.MustCompile(`RETURNING r\.id[^)]*AS secret_n`)

// claimReadingWholeRows is claimOneStatement as it was: every column of
// each leased row read back by GORM's reflective scan (the bench's
// reference).
func claimReadingWholeRows(db *gorm.DB, who Claimant, max int, lease time.Duration, now time.Time) ([]Grant, error) {
	secrets, statement, args := claimStatement(who, max, lease, now)
	statement = returningGrant.ReplaceAllLiteralString(statement, "RETURNING r.*, p.n AS secret_n")
	statement = strings.Replace(statement, "SELECT "+grantColumns+" FROM granted", "SELECT * FROM granted", 1)
	if !strings.Contains(statement, "r.*") || !strings.Contains(statement, "SELECT * FROM granted") {
		panic("claimReadingWholeRows: claimPostgres changed shape")
	}
	rows, err := db.Statement.ConnPool.QueryContext(db.Statement.Context, statement, args...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	var grants []Grant
	for rows.Next() {
		var row struct {
			Rollout
			SecretN int
		}
		if err := db.ScanRows(rows, &row); err != nil {
			return nil, err
		}
		g := secrets[row.SecretN-1]
		g.Rollout = row.Rollout
		grants = append(grants, g)
	}
	return grants, rows.Err()
}
