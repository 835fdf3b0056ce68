package flywheel

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/models"
)

// TestFairGate_AdmitsWaitersInArrivalOrder queues requests behind a full
// gate one after another and checks they are admitted in that order
// (database/sql's own queue would admit them at random).
func TestFairGate_AdmitsWaitersInArrivalOrder(t *testing.T) {
	t.Parallel()
	g := make(fairGate, 1)
	if err := g.enter(context.Background()); err != nil {
		t.Fatal(err)
	}
	const waiters = 30
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Go(func() {
			if err := g.enter(context.Background()); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			g.leave()
		})
		// Let waiter i block on the gate before i+1 arrives.
		time.Sleep(3 * time.Millisecond)
	}
	g.leave()
	wg.Wait()
	for i, got := range order {
		if got != i {
			t.Fatalf("admitted in order %v, want arrival order", order)
		}
	}
	if len(order) != waiters {
		t.Fatalf("%d of %d waiters admitted", len(order), waiters)
	}
}

// TestFairGate_AWaiterWhoseContextEndsLeavesTheQueue: a cancelled waiter
// gets its context's error and takes no slot from those behind it.
func TestFairGate_AWaiterWhoseContextEndsLeavesTheQueue(t *testing.T) {
	t.Parallel()
	g := make(fairGate, 1)
	if err := g.enter(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := g.enter(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("enter on a full gate = %v, want the context's deadline", err)
	}
	g.leave()
	if err := g.enter(context.Background()); err != nil {
		t.Fatalf("the slot was not free again: %v", err)
	}
}

// TestNewFairGate_HasOneSlotPerPoolConnection sizes the gate from the
// pool: a request holding a slot always finds a connection.
func TestNewFairGate_HasOneSlotPerPoolConnection(t *testing.T) {
	t.Parallel()
	db, err := models.Open("sqlite:" + filepath.Join(t.TempDir(), "gate.db"))
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sqlDB.Close() })
	sqlDB.SetMaxOpenConns(3)
	if g := newFairGate(db); cap(g) != 3 {
		t.Fatalf("gate has %d slots for a pool of 3 connections", cap(g))
	}
	sqlDB.SetMaxOpenConns(0)
	if g := newFairGate(db); g != nil {
		t.Fatalf("an unbounded pool got a gate of %d slots, want none", cap(g))
	}
}
