package flywheel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"
)

// commitTogether commits xs as one batch, as a committer does, and
// resolves each answer as Accept does.
func commitTogether(t *testing.T, b *OutputBatcher, xs []*batchedOutput) []batchResult {
	t.Helper()
	b.commit(xs)
	out := make([]batchResult, len(xs))
	for i, x := range xs {
		out[i].epoch, out[i].same, out[i].err = b.resolve(context.Background(), x, <-x.done)
	}
	return out
}

type batchResult struct {
	epoch int64
	same  bool
	err   error
}

func waitingOutput(h Holder, o Output, now time.Time) *batchedOutput {
	return &batchedOutput{h: h, o: o, now: dbTime(now), done: make(chan batchAnswer, 1)}
}

func ptr[T any](v T) *T { return &v }

// storedOutputRow is an output row as stored, without its rollout id.
func storedOutputRow(t *testing.T, b *OutputBatcher, id string) string {
	t.Helper()
	var row string
	err := b.db.Raw(`SELECT concat_ws('|', epoch, body_sha256, final_text, tool_calls, tool_calls_omitted_count,
		llm_call_count, artifacts, reward, success, exclusion_reason, exclusion_detail, events, timing, agent_fingerprint,
		tool_call_landed, received_at IS NOT NULL) FROM flywheel_outputs WHERE rollout_id = ?`, id).Scan(&row).Error
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// TestOutputBatch_AcceptsEachOutputOnceAndRefusesEachForItsOwnReason: one
// batch holding good outputs, a forged lease token, another rollout's key
// and a repeat of an accepted output accepts exactly the good ones, each
// stored field for field as the one-output statement stores it, with its
// output notice replacing its grant notice; the others get the refusal
// they would get alone and leave nothing behind.
func TestOutputBatch_AcceptsEachOutputOnceAndRefusesEachForItsOwnReason(t *testing.T) {
	t.Parallel()
	eachBatchStore(t, checkBatchAnswers)
}

// eachBatchStore runs check on a fresh PostgreSQL schema and on a fresh
// SQLite database.
func eachBatchStore(t *testing.T, check func(t *testing.T, db *gorm.DB)) {
	for _, store := range []struct {
		name string
		open func(testing.TB) *gorm.DB
	}{{"postgres", freshPostgresSchema}, {"sqlite", benchSQLite}} {
		t.Run(store.name, func(t *testing.T) {
			t.Parallel()
			check(t, store.open(t))
		})
	}
}

func checkBatchAnswers(t *testing.T, db *gorm.DB) {
	hs := leaseAll(t, db, 7, nil)
	b, _ := newOutputBatcher(db)
	now := time.Now()
	reward := 0.1
	reward += 0.2 // 0.30000000000000004: every digit must survive
	full := Output{BodySHA256: "full", FinalText: "done", ToolCalls: ptr(`[{"name":"search"}]`), ToolCallsOmittedCount: 2,
		LLMCallCount: ptr(int64(3)), Artifacts: ptr(`{"a":1}`), Reward: &reward, Success: ptr(true),
		ExclusionReason: ptr("capacity"), ExclusionDetail: ptr("why"), Events: ptr(`[]`), Timing: ptr(`{"ms":1}`),
		AgentFingerprint: ptr(`{"v":"1"}`), ToolCallLanded: ptr(`[true,null]`)}
	bare := Output{BodySHA256: "bare", FinalText: ""}
	if _, _, err := AcceptOutput(context.Background(), db, hs[5], bare, now); err != nil {
		t.Fatal(err)
	}
	if _, _, err := AcceptOutput(context.Background(), db, hs[6], full, now); err != nil {
		t.Fatal(err)
	}
	forged := hs[2]
	forged.LeaseToken = "forged"
	foreign := hs[3]
	foreign.APIKey = hs[4].APIKey
	got := commitTogether(t, b, []*batchedOutput{
		waitingOutput(hs[0], full, now), waitingOutput(hs[1], bare, now), waitingOutput(forged, bare, now),
		waitingOutput(foreign, bare, now), waitingOutput(hs[4], bare, now), waitingOutput(hs[5], bare, now),
	})
	want := []error{nil, nil, ErrStaleLease, ErrForeignKey, nil, ErrOutputAccepted}
	for i, r := range got {
		if !errors.Is(r.err, want[i]) || (r.err == nil) != (want[i] == nil) {
			t.Errorf("output %d: err %v, want %v", i, r.err, want[i])
		}
		if want[i] == nil && r.epoch != 1 {
			t.Errorf("output %d: epoch %d, want 1", i, r.epoch)
		}
	}
	if !got[5].same {
		t.Error("a repeat of the accepted body should say same_body")
	}
	if a, b := storedOutputRow(t, b, hs[0].RolloutID), storedOutputRow(t, b, hs[6].RolloutID); a != b {
		t.Errorf("batched output stored as\n%s\nalone as\n%s", a, b)
	}
	if a, b := storedOutputRow(t, b, hs[1].RolloutID), storedOutputRow(t, b, hs[5].RolloutID); a != b {
		t.Errorf("batched bare output stored as\n%s\nalone as\n%s", a, b)
	}
	for i, h := range hs[:5] {
		var outputs, outputNotices, grantNotices int64
		db.Raw("SELECT count(*) FROM flywheel_outputs WHERE rollout_id = ?", h.RolloutID).Scan(&outputs)
		db.Raw("SELECT count(*) FROM flywheel_notices WHERE rollout_id = ? AND kind = ?", h.RolloutID, NoticeOutput).Scan(&outputNotices)
		db.Raw("SELECT count(*) FROM flywheel_notices WHERE rollout_id = ? AND kind = ?", h.RolloutID, NoticeGrant).Scan(&grantNotices)
		accepted := want[i] == nil
		if want := map[bool]int64{true: 1, false: 0}[accepted]; outputs != want || outputNotices != want || grantNotices != 1-want {
			t.Errorf("rollout %d (accepted %v): %d outputs, %d output notices, %d grant notices", i, accepted, outputs, outputNotices, grantNotices)
		}
	}
}

// TestOutputBatch_AValueTheStoreRefusesFailsOnlyItsOwnOutput: a NUL byte
// in one output's text makes PostgreSQL refuse the whole batch statement;
// the others are accepted anyway and that one gets the store's error.
func TestOutputBatch_AValueTheStoreRefusesFailsOnlyItsOwnOutput(t *testing.T) {
	t.Parallel()
	db := freshPostgresSchema(t)
	hs := leaseAll(t, db, 3, nil)
	b := &OutputBatcher{db: db}
	now := time.Now()
	got := commitTogether(t, b, []*batchedOutput{
		waitingOutput(hs[0], Output{BodySHA256: "a", FinalText: "fine"}, now),
		waitingOutput(hs[1], Output{BodySHA256: "b", FinalText: "nul\x00here"}, now),
		waitingOutput(hs[2], Output{BodySHA256: "c", FinalText: "fine"}, now),
	})
	if got[0].err != nil || got[2].err != nil {
		t.Fatalf("the storable outputs were refused: %v, %v", got[0].err, got[2].err)
	}
	if !ValueRefused(got[1].err) {
		t.Fatalf("the NUL output: %v, want a data exception", got[1].err)
	}
	var stored int64
	db.Raw("SELECT count(*) FROM flywheel_outputs").Scan(&stored)
	if stored != 2 {
		t.Fatalf("%d outputs stored, want 2", stored)
	}
}

// TestOutputBatcher_ConcurrentRepeatsStoreEachOutputOnce: every rollout's
// output posted twice at once, through the committers, is accepted once
// and answered output_already_accepted with same_body once.
func TestOutputBatcher_ConcurrentRepeatsStoreEachOutputOnce(t *testing.T) {
	t.Parallel()
	eachBatchStore(t, checkConcurrentRepeats)
}

func checkConcurrentRepeats(t *testing.T, db *gorm.DB) {
	hs := leaseAll(t, db, 48, nil)
	b := NewOutputBatcher(db)
	var (
		mu                 sync.Mutex
		accepted, repeated = map[string]int{}, map[string]int{}
		wg                 sync.WaitGroup
		unexpected         []error
	)
	for _, h := range hs {
		for range 2 {
			wg.Go(func() {
				o := Output{BodySHA256: "same-" + h.RolloutID, FinalText: "done"}
				_, same, err := b.Accept(context.Background(), h, o, time.Now())
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					accepted[h.RolloutID]++
				case errors.Is(err, ErrOutputAccepted) && same:
					repeated[h.RolloutID]++
				default:
					unexpected = append(unexpected, fmt.Errorf("%s: same %v, %w", h.RolloutID, same, err))
				}
			})
		}
	}
	wg.Wait()
	if len(unexpected) > 0 {
		t.Fatal(unexpected)
	}
	for _, h := range hs {
		if accepted[h.RolloutID] != 1 || repeated[h.RolloutID] != 1 {
			t.Errorf("%s: accepted %d times, repeated %d", h.RolloutID, accepted[h.RolloutID], repeated[h.RolloutID])
		}
	}
	var stored int64
	db.Raw("SELECT count(*) FROM flywheel_outputs").Scan(&stored)
	if stored != int64(len(hs)) {
		t.Fatalf("%d outputs stored for %d rollouts", stored, len(hs))
	}
}

// TestDistinctRollouts_KeepsOneOutputPerRolloutAndTheBound: a second
// output of a rollout, and any beyond the bound, wait for a later batch,
// in arrival order.
func TestDistinctRollouts_KeepsOneOutputPerRolloutAndTheBound(t *testing.T) {
	t.Parallel()
	mk := func(id string) *batchedOutput { return &batchedOutput{h: Holder{RolloutID: id}} }
	ids := func(xs []*batchedOutput) (s []string) {
		for _, x := range xs {
			s = append(s, x.h.RolloutID)
		}
		return s
	}
	batch, rest := distinctByRollout([]*batchedOutput{mk("a"), mk("b"), mk("a"), mk("c"), mk("d")}, 3)
	if fmt.Sprint(ids(batch)) != "[a b c]" || fmt.Sprint(ids(rest)) != "[a d]" {
		t.Fatalf("batch %v rest %v", ids(batch), ids(rest))
	}
}
