package e2e

import (
	"net/http"
	"sync"
	"testing"
	"time"

	fwapi "github.com/gatehouse/gatehouse/api/flywheel"
	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
)

// TestFault_EnqueueIdempotencyKeyStoresOneRollout sends the same operator
// enqueue with the same Idempotency-Key 100 times at once and finds one
// stored rollout, named by all 100 answers. Then, as models/flywheel's
// Enqueue documents, the key wins over the body: the same key with another
// body stores nothing and answers the rollout the key first made (its
// stored input unchanged), and because the key is scoped per position in
// the batch (key#i), a longer body under the same key reuses position 0
// and stores only its new position 1.
func TestFault_EnqueueIdempotencyKeyStoresOneRollout(t *testing.T) {
	t.Parallel()
	s := Shared(t)
	db := researchDB(t, s) // the shared stack's embedded SQLite
	key := uniq("enqueue-idem")
	item := func(input string) map[string]any { return map[string]any{"turn_input": input, "deadline_s": 60} }
	enqueue := func(body any) (Response, error) {
		return postWith(s.APIURL+"/operator/v1/rollouts", s.OperatorToken, body, 2*time.Minute, fwapi.IdempotencyKeyHeader, key)
	}
	idsOf := func(t *testing.T, r Response) []string {
		t.Helper()
		var out struct {
			RolloutIDs []string `json:"rollout_ids"`
		}
		r.JSON(t, &out)
		if r.Status != http.StatusCreated {
			t.Fatalf("enqueue: %d %s", r.Status, truncate(r.Body))
		}
		return out.RolloutIDs
	}
	stored := func(t *testing.T) []fwmodels.Rollout {
		t.Helper()
		var rows []fwmodels.Rollout
		if err := db.Where("enqueue_key LIKE ?", key+"#%").Order("enqueue_key").Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		return rows
	}

	first := map[string]any{"rollouts": []any{item("idempotency first body")}}
	answers := make([]Response, duplicates)
	errs := make([]error, duplicates)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() { answers[i], errs[i] = enqueue(first) })
	}
	wg.Wait()
	named := map[string]int{}
	for i, r := range answers {
		if errs[i] != nil {
			t.Fatalf("copy %d: %v", i, errs[i])
		}
		ids := idsOf(t, r)
		if len(ids) != 1 {
			t.Fatalf("copy %d named %v, want one rollout", i, ids)
		}
		named[ids[0]]++
	}
	rows := stored(t)
	if len(named) != 1 || len(rows) != 1 {
		t.Fatalf("%d copies named %d distinct rollouts %v and stored %d rows", duplicates, len(named), named, len(rows))
	}
	id := rows[0].ID
	if named[id] != duplicates || rows[0].TurnInput != "idempotency first body" || *rows[0].EnqueueKey != key+"#0" {
		t.Fatalf("answers named %v; stored %s (key %q, input %q)", named, id, *rows[0].EnqueueKey, rows[0].TurnInput)
	}

	t.Run("another body with the same key answers the first rollout and stores nothing", func(t *testing.T) {
		r, err := enqueue(map[string]any{"rollouts": []any{item("idempotency other body")}})
		if err != nil {
			t.Fatal(err)
		}
		if ids := idsOf(t, r); len(ids) != 1 || ids[0] != id {
			t.Fatalf("answered %v, want [%s]", ids, id)
		}
		if rows := stored(t); len(rows) != 1 || rows[0].ID != id || rows[0].TurnInput != "idempotency first body" {
			t.Fatalf("stored %+v, want only %s with the first body's input", rows, id)
		}
	})

	t.Run("a longer body with the same key stores only its new positions", func(t *testing.T) {
		r, err := enqueue(map[string]any{"rollouts": []any{item("idempotency longer 0"), item("idempotency longer 1")}})
		if err != nil {
			t.Fatal(err)
		}
		ids := idsOf(t, r)
		if len(ids) != 2 || ids[0] != id || ids[1] == id {
			t.Fatalf("answered %v, want [%s, <new>]", ids, id)
		}
		rows := stored(t)
		if len(rows) != 2 || rows[0].ID != id || rows[0].TurnInput != "idempotency first body" ||
			rows[1].ID != ids[1] || rows[1].TurnInput != "idempotency longer 1" || *rows[1].EnqueueKey != key+"#1" {
			t.Fatalf("stored %+v, want %s unchanged and %s with position 1's input", rows, id, ids[1])
		}
	})
}
