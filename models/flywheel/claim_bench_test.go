package flywheel

import (
	"context"
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
// back every column of each leased row into GORM's reflective Find
// ("rows"). The variants take turns, each round led by the next, so a
// change of machine load hits them alike. Reports <variant>-claims/s and
// <variant>-client-cpu-us: this process's CPU per leased rollout.
// Run:
//
//	GATEHOUSE_TEST_DATABASE_URL=postgres://… go test ./models/flywheel -run '^$' -bench Claim_Postgres -benchtime 5x
func BenchmarkClaim_Postgres(b *testing.B) {
	db, _ := leasedRollouts(b, 0)
	type variant struct {
		name  string
		claim func(*gorm.DB, Claimant, int, time.Duration, time.Time) ([]Grant, error)
		wall  time.Duration
		cpu   time.Duration
		n     int
	}
	variants := []*variant{{name: "columns", claim: claimOneStatement}, {name: "rows", claim: claimReadingWholeRows}}
	who := Claimant{CredentialID: "bench", AllProjects: true}
	ctx := context.Background()
	b.ResetTimer()
	for round := range b.N {
		for k := range variants {
			v := variants[(round+k)%len(variants)]
			b.StopTimer()
			now := time.Now()
			for range 512 {
				if _, _, err := Enqueue(ctx, db, NewRollout{ID: NewRolloutID(), TurnInput: "bench", DeadlineAt: now.Add(2 * time.Hour), MaxAttempts: 3}); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
			start, cpu := time.Now(), processCPU(b)
			for leased := 0; leased < 512; {
				gs, err := v.claim(db.WithContext(ctx), who, 16, time.Hour, dbTime(time.Now()))
				if err != nil || len(gs) == 0 {
					b.Fatalf("%s: %v (%d leased)", v.name, err, leased)
				}
				leased += len(gs)
			}
			v.wall, v.cpu, v.n = v.wall+time.Since(start), v.cpu+processCPU(b)-cpu, v.n+512
		}
	}
	b.StopTimer()
	for _, v := range variants {
		b.ReportMetric(float64(v.n)/v.wall.Seconds(), v.name+"-claims/s")
		b.ReportMetric(float64(v.cpu.Microseconds())/float64(v.n), v.name+"-client-cpu-us")
	}
}

// returningGrant matches claimPostgres's RETURNING list.
var returningGrant = regexp.MustCompile(`RETURNING r\.id[^)]*AS secret_n`)

// claimReadingWholeRows is claimOneStatement as it was: every column of
// each leased row read back into GORM's Find (the bench's reference).
func claimReadingWholeRows(db *gorm.DB, who Claimant, max int, lease time.Duration, now time.Time) ([]Grant, error) {
	secrets, statement, args := claimStatement(who, max, lease, now)
	statement = returningGrant.ReplaceAllLiteralString(statement, "RETURNING r.*, p.n AS secret_n")
	statement = strings.Replace(statement, "SELECT "+grantColumns+" FROM granted", "SELECT * FROM granted", 1)
	if !strings.Contains(statement, "r.*") || !strings.Contains(statement, "SELECT * FROM granted") {
		panic("claimReadingWholeRows: claimPostgres changed shape")
	}
	var rows []struct {
		Rollout
		SecretN int
	}
	if err := db.Raw(statement, args).Find(&rows).Error; err != nil {
		return nil, err
	}
	grants := make([]Grant, 0, len(rows))
	for _, row := range rows {
		g := secrets[row.SecretN-1]
		g.Rollout = row.Rollout
		grants = append(grants, g)
	}
	return grants, nil
}
