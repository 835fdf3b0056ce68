package research_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// createConcurrently runs CreateReviewRequest for every request at once and
// returns each call's error, in order.
func createConcurrently(db *gorm.DB, reqs []research.ReviewRequest) []error {
	errs := make([]error, len(reqs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Go(func() {
			<-start
			errs[i] = research.CreateReviewRequest(context.Background(), db, r, nil)
		})
	}
	close(start)
	wg.Wait()
	return errs
}

func openOfKind(t *testing.T, db *gorm.DB) []research.ReviewRequest {
	t.Helper()
	var open []research.ReviewRequest
	if err := db.Where("target_type = ? AND target_id = ? AND kind = ? AND status IN ?", "experiment", "exp", "design",
		[]string{research.ReviewRequested, research.ReviewStarted}).Find(&open).Error; err != nil {
		t.Fatal(err)
	}
	return open
}

// checkOneOpen: one request of the kind is open at the end, every call
// that did not store it was refused with the conflict naming it, and
// (when exact) exactly one call succeeded.
func checkOneOpen(t *testing.T, db *gorm.DB, reqs []research.ReviewRequest, errs []error, exact bool) {
	t.Helper()
	open := openOfKind(t, db)
	if len(open) != 1 {
		t.Fatalf("%d open requests of one kind for one target, want 1 (errors %v)", len(open), errs)
	}
	won := 0
	for i, err := range errs {
		if err == nil {
			won++
			continue
		}
		var me *research.Error
		if !errors.As(err, &me) || me.Code != research.CodeConflict || me.Field != "/role" || me.Details["reason"] != "review_pending" {
			t.Fatalf("request %s: %v, want the review_pending conflict", reqs[i].ID, err)
		}
		if id, _ := me.Details["review_request_id"].(string); id == "" || id == reqs[i].ID {
			t.Fatalf("request %s: conflict names %v", reqs[i].ID, me.Details["review_request_id"])
		}
	}
	if won == 0 || (exact && won != 1) {
		t.Fatalf("%d calls succeeded (errors %v)", won, errs)
	}
	for i, err := range errs {
		if err == nil && exact && reqs[i].ID != open[0].ID {
			t.Fatalf("the open request %s is not the one stored (%s)", open[0].ID, reqs[i].ID)
		}
	}
}

// raceRequests runs five rounds of eight concurrent requests of one kind
// for one target, request i with role(i), and checks each round with
// checkOneOpen.
func raceRequests(t *testing.T, role func(i int) string, exact bool) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		for round := range 5 {
			if err := db.Exec("DELETE FROM research_review_requests").Error; err != nil {
				t.Fatal(err)
			}
			reqs := make([]research.ReviewRequest, 8)
			for i := range reqs {
				reqs[i] = openRequest(fmt.Sprintf("rr_%d_%d", round, i), role(i), time.Now().Add(time.Hour))
			}
			checkOneOpen(t, db, reqs, createConcurrently(db, reqs), exact)
		}
	})
}

// TestCreateReviewRequest_ConcurrentRolesOneWins: concurrent requests of
// one kind for one target, each with its own role: exactly one is stored,
// every other call gets the review_pending conflict.
func TestCreateReviewRequest_ConcurrentRolesOneWins(t *testing.T) {
	raceRequests(t, func(i int) string { return fmt.Sprintf("reviewer_%d", i) }, true)
}

// TestCreateReviewRequest_ConcurrentSameRoleOneOpen: concurrent requests of
// one role leave one open request (a later one supersedes an earlier; one
// that overlaps the winner is refused).
func TestCreateReviewRequest_ConcurrentSameRoleOneOpen(t *testing.T) {
	raceRequests(t, func(int) string { return "design_reviewer" }, false)
}
