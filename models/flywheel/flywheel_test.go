package flywheel_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

var ctx = context.Background()

func enqueue(t *testing.T, db *gorm.DB, deadline time.Time, maxAttempts int) string {
	t.Helper()
	id := fw.NewRolloutID()
	if _, _, err := fw.Enqueue(ctx, db, fw.NewRollout{ID: id, TurnInput: "do it", DeadlineAt: deadline, MaxAttempts: maxAttempts}); err != nil {
		t.Fatal(err)
	}
	return id
}

func claimOne(t *testing.T, db *gorm.DB, now time.Time, lease time.Duration) fw.Grant {
	t.Helper()
	gs, err := fw.Claim(ctx, db, fw.Claimant{CredentialID: "cred", AllProjects: true}, 1, lease, now)
	if err != nil || len(gs) != 1 {
		t.Fatalf("claim: %v %d", err, len(gs))
	}
	return gs[0]
}

func holder(g fw.Grant) fw.Holder {
	return fw.Holder{RolloutID: g.Rollout.ID, APIKey: g.APIKey, LeaseToken: g.LeaseToken}
}

func TestTurns_ReplayedBatchStoresNothingTwiceAndKeepsNullApartFromEmpty(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		empty := "[]"
		batch := func() []fw.Turn {
			return []fw.Turn{
				{AgentID: "a", TurnID: "t1", ToolCalls: nil, CredentialID: "c"},
				{AgentID: "a", TurnID: "t2", ToolCalls: &empty, CredentialID: "c"},
				{AgentID: "a", TurnID: "t1", CredentialID: "c"},
			}
		}
		acc, dup, err := fw.InsertTurns(ctx, db, batch())
		if err != nil || acc != 2 || dup != 1 {
			t.Fatalf("first: %d %d %v", acc, dup, err)
		}
		acc, dup, err = fw.InsertTurns(ctx, db, batch())
		if err != nil || acc != 0 || dup != 3 {
			t.Fatalf("replay: %d %d %v", acc, dup, err)
		}
		t1, _ := fw.GetTurn(ctx, db, "", "a", "t1")
		t2, _ := fw.GetTurn(ctx, db, "", "a", "t2")
		if t1.ToolCalls != nil || t2.ToolCalls == nil || *t2.ToolCalls != "[]" {
			t.Fatalf("null/[] not kept apart: %v %v", t1.ToolCalls, t2.ToolCalls)
		}
	})
}

func TestLease_HeartbeatExtendsAndStaleTokenIsFenced(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		id := enqueue(t, db, now.Add(time.Hour), 3)
		g := claimOne(t, db, now, 30*time.Second)
		epoch, exp, err := fw.Heartbeat(ctx, db, holder(g), now.Add(20*time.Second))
		if err != nil || epoch != 1 || !exp.After(g.ExpiresAt) {
			t.Fatalf("heartbeat: %d %v %v", epoch, exp, err)
		}
		bad := holder(g)
		bad.LeaseToken = "lt_wrong"
		if _, _, err := fw.Heartbeat(ctx, db, bad, now.Add(21*time.Second)); !errors.Is(err, fw.ErrStaleLease) {
			t.Fatalf("wrong token: %v", err)
		}
		// Past the extended expiry the lease is revoked and re-queued; the new
		// lease has a new token and the old holder is fenced.
		later := exp.Add(time.Second)
		if _, _, err := fw.Heartbeat(ctx, db, holder(g), later); !errors.Is(err, fw.ErrStaleLease) {
			t.Fatalf("expired lease heartbeat: %v", err)
		}
		res, err := fw.ExpireLease(ctx, db, id, 1, 5, later)
		if err != nil || res.Outcome != fw.ExpiryRequeued {
			t.Fatalf("expire: %+v %v", res, err)
		}
		again, err := fw.ExpireLease(ctx, db, id, 1, 5, later)
		if err != nil || again.Outcome != fw.ExpiryRequeued {
			t.Fatalf("expire is not idempotent: %+v %v", again, err)
		}
		g2 := claimOne(t, db, later, 30*time.Second)
		if g2.Rollout.LeaseEpoch != 2 || g2.LeaseToken == g.LeaseToken {
			t.Fatalf("new lease must have a new epoch and token: %+v", g2.Rollout)
		}
		if _, _, err := fw.Heartbeat(ctx, db, holder(g), later); !errors.Is(err, fw.ErrStaleLease) {
			t.Fatalf("old holder after reclaim: %v", err)
		}
		if _, _, err := fw.Heartbeat(ctx, db, holder(g2), later); err != nil {
			t.Fatalf("new holder: %v", err)
		}
		hist, _ := fw.LeaseHistory(ctx, db, id)
		if len(hist) != 2 || hist[0].EndReason == nil || *hist[0].EndReason != "expired" || hist[0].Heartbeats != 5 {
			t.Fatalf("lease history: %+v", hist)
		}
	})
}

func TestLease_ExpiryFindsALandedHeartbeat(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		id := enqueue(t, db, now.Add(time.Hour), 3)
		g := claimOne(t, db, now, 30*time.Second)
		_, exp, err := fw.Heartbeat(ctx, db, holder(g), now.Add(25*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		res, err := fw.ExpireLease(ctx, db, id, 1, 0, now.Add(31*time.Second))
		if err != nil || res.Outcome != fw.ExpiryExtended || !res.ExpiresAt.Equal(exp.UTC()) {
			t.Fatalf("want extended to %v, got %+v %v", exp, res, err)
		}
	})
}

func TestLease_AttemptsAreBounded(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		id := enqueue(t, db, now.Add(time.Hour), 1)
		claimOne(t, db, now, 10*time.Second)
		res, err := fw.ExpireLease(ctx, db, id, 1, 0, now.Add(11*time.Second))
		if err != nil || res.Outcome != fw.ExpiryExhausted {
			t.Fatalf("want exhausted: %+v %v", res, err)
		}
		if gs, _ := fw.Claim(ctx, db, fw.Claimant{CredentialID: "c", AllProjects: true}, 5, time.Minute, now.Add(12*time.Second)); len(gs) != 0 {
			t.Fatal("an exhausted rollout must not be claimable")
		}
		if _, _, err := fw.Finalize(ctx, db, id, fw.StatusExcluded, "capacity", "", 0, now); err != nil {
			t.Fatal(err)
		}
		r, _ := fw.GetRollout(ctx, db, id)
		if r.Status != fw.StatusExcluded || r.ExclusionReason == nil || *r.ExclusionReason != "capacity" {
			t.Fatalf("%+v", r)
		}
	})
}

func TestOutput_AcceptedOnceAndOnlyFromTheCurrentHolder(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		id := enqueue(t, db, now.Add(time.Hour), 3)
		g := claimOne(t, db, now, 30*time.Second)
		other := holder(g)
		other.APIKey = "rk_nobody"
		if _, _, err := fw.AcceptOutput(ctx, db, other, fw.Output{FinalText: "x", BodySHA256: "a"}, now); !errors.Is(err, fw.ErrUnknownKey) {
			t.Fatalf("unknown key: %v", err)
		}
		if _, _, err := fw.AcceptOutput(ctx, db, holder(g), fw.Output{FinalText: "x", BodySHA256: "a"}, now); err != nil {
			t.Fatal(err)
		}
		_, same, err := fw.AcceptOutput(ctx, db, holder(g), fw.Output{FinalText: "x", BodySHA256: "a"}, now)
		if !errors.Is(err, fw.ErrOutputAccepted) || !same {
			t.Fatalf("second output: %v same=%v", err, same)
		}
		if _, err := fw.ResolveGateway(ctx, db, g.LLMToken, g.APIKey, now); !errors.Is(err, fw.ErrGone) {
			t.Fatalf("gateway after output: %v", err)
		}
		if _, _, err := fw.Finalize(ctx, db, id, fw.StatusCompleted, "", "", 1, now); err != nil {
			t.Fatal(err)
		}
		r, _ := fw.GetRollout(ctx, db, id)
		if r.Status != fw.StatusCompleted {
			t.Fatalf("status %s", r.Status)
		}
	})
}

func TestOutput_ForeignKeyAndDeadline(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		enqueue(t, db, now.Add(time.Hour), 3)
		enqueue(t, db, now.Add(time.Minute), 3)
		gs, err := fw.Claim(ctx, db, fw.Claimant{CredentialID: "c", AllProjects: true}, 2, 5*time.Minute, now)
		if err != nil || len(gs) != 2 {
			t.Fatal(err, len(gs))
		}
		if !gs[1].ExpiresAt.Equal(gs[1].Rollout.DeadlineAt) {
			t.Fatalf("a lease must not outlive the deadline: %v vs %v", gs[1].ExpiresAt, gs[1].Rollout.DeadlineAt)
		}
		cross := holder(gs[0])
		cross.APIKey = gs[1].APIKey
		if _, _, err := fw.Heartbeat(ctx, db, cross, now); !errors.Is(err, fw.ErrForeignKey) {
			t.Fatalf("foreign key: %v", err)
		}
		if _, _, err := fw.Heartbeat(ctx, db, holder(gs[1]), now.Add(2*time.Minute)); !errors.Is(err, fw.ErrGone) {
			t.Fatalf("after deadline: %v", err)
		}
	})
}

func TestGateway_CountsEachCompletionOnce(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		id := enqueue(t, db, now.Add(time.Hour), 3)
		g := claimOne(t, db, now, time.Minute)
		if _, err := fw.ResolveGateway(ctx, db, g.LLMToken, "rk_other", now); !errors.Is(err, fw.ErrForeignKey) {
			t.Fatalf("wrong key: %v", err)
		}
		l, err := fw.ResolveGateway(ctx, db, g.LLMToken, g.APIKey, now)
		if err != nil || l.RolloutID != id {
			t.Fatal(err)
		}
		call := fw.GatewayCall{ID: fw.NewCallID(), RolloutID: id, Epoch: 1, Endpoint: "chat/completions", Completion: true, Status: 200, RequestSHA256: "x", StartedAt: now}
		for i := 0; i < 2; i++ {
			if err := fw.RecordCall(ctx, db, call); err != nil {
				t.Fatal(err)
			}
		}
		emb := call
		emb.ID, emb.Endpoint, emb.Completion = fw.NewCallID(), "embeddings", false
		if err := fw.RecordCall(ctx, db, emb); err != nil {
			t.Fatal(err)
		}
		r, _ := fw.GetRollout(ctx, db, id)
		if r.LLMCallsObserved != 1 {
			t.Fatalf("observed %d", r.LLMCallsObserved)
		}
	})
}

func TestLease_HistoryCountsEveryLandedHeartbeatEvenWhenSignalsCoalesced(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		id := enqueue(t, db, now.Add(time.Hour), 3)
		g := claimOne(t, db, now, 30*time.Second)
		var exp time.Time
		for i := 1; i <= 3; i++ {
			var err error
			if _, exp, err = fw.Heartbeat(ctx, db, holder(g), now.Add(time.Duration(i)*time.Second)); err != nil {
				t.Fatal(err)
			}
		}
		// The workflow saw one coalesced signal; the database saw three.
		if res, err := fw.ExpireLease(ctx, db, id, 1, 1, exp.Add(time.Second)); err != nil || res.Outcome != fw.ExpiryRequeued {
			t.Fatalf("expire: %+v %v", res, err)
		}
		g2 := claimOne(t, db, exp.Add(2*time.Second), 30*time.Second)
		if r, err := fw.GetRollout(ctx, db, id); err != nil || r.LeaseHeartbeats != 0 || g2.Rollout.LeaseEpoch != 2 {
			t.Fatalf("a new lease starts its count at zero: %+v %v", r, err)
		}
		hist, _ := fw.LeaseHistory(ctx, db, id)
		if len(hist) != 2 || hist[0].Heartbeats != 3 {
			t.Fatalf("lease history: %+v", hist)
		}
	})
}
