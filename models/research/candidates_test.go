package research_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

func TestPromote_TwentyConcurrentWithSameExpectationExactlyOneWins(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		var ids []string
		for i := 0; i < 20; i++ {
			c, _, err := research.SubmitCandidate(ctx, db, research.Candidate{ProjectID: "p1", IdempotencyKey: fmt.Sprint("k", i),
				RequestHash: fmt.Sprint(i), Name: "c", SourceKind: "artifact", SourceRef: "r", MetricsJSON: "{}", PrimaryMetric: "m", ValidationSummary: "v"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, c.ID)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, conflicts := 0, 0
		for _, id := range ids {
			wg.Add(1)
			go func(id string) {
				defer wg.Done()
				res, err := research.Promote(ctx, db, "p1", id, "", "a reason of at least twenty characters", "cred")
				mu.Lock()
				defer mu.Unlock()
				var me *research.Error
				switch {
				case err == nil && res.Promoted:
					wins++
				case errors.As(err, &me) && me.Code == research.CodeConflict:
					conflicts++
				default:
					t.Errorf("unexpected: %+v %v", res, err)
				}
			}(id)
		}
		wg.Wait()
		if wins != 1 || conflicts != 19 {
			t.Fatalf("wins %d conflicts %d", wins, conflicts)
		}
		var n int64
		db.Model(&research.Promotion{}).Where("project_id = ?", "p1").Count(&n)
		if n != 1 {
			t.Fatalf("%d promotion events", n)
		}
	})
}

func TestSubmitCandidate_SameKeySameCandidateDifferentRequestConflicts(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		c := research.Candidate{ProjectID: "p", IdempotencyKey: "k", RequestHash: "h1", Name: "c", SourceKind: "artifact",
			SourceRef: "r", MetricsJSON: "{}", PrimaryMetric: "m", ValidationSummary: "v"}
		a, created, err := research.SubmitCandidate(ctx, db, c)
		if err != nil || !created {
			t.Fatal(err)
		}
		b, created, err := research.SubmitCandidate(ctx, db, c)
		if err != nil || created || b.ID != a.ID {
			t.Fatalf("replay: %v %v %v", b.ID, created, err)
		}
		c.RequestHash = "h2"
		if _, _, err := research.SubmitCandidate(ctx, db, c); err == nil {
			t.Fatal("different request under the same key accepted")
		}
	})
}
