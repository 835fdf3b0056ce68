package flywheel

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
)

// rowCounts are the flywheel rows a turns batch or a rollout output can
// write: a rejected request (4xx) must leave every one of them as it was.
type rowCounts struct {
	Turns, Rollouts, Leases, Outputs, RolloutsWithOutput int64
}

func (e *testEnv) rowCounts(t testing.TB) rowCounts {
	t.Helper()
	var n rowCounts
	for _, q := range []struct {
		dst   *int64
		model any
		where string
	}{
		{&n.Turns, &fwmodels.Turn{}, ""},
		{&n.Rollouts, &fwmodels.Rollout{}, ""},
		{&n.Leases, &fwmodels.Lease{}, ""},
		{&n.Outputs, &fwmodels.Output{}, ""},
		{&n.RolloutsWithOutput, &fwmodels.Rollout{}, "output_at IS NOT NULL"},
	} {
		tx := e.db.Model(q.model)
		if q.where != "" {
			tx = tx.Where(q.where)
		}
		if err := tx.Count(q.dst).Error; err != nil {
			t.Fatalf("count %T: %v", q.model, err)
		}
	}
	return n
}

// rollout reads one rollout row as stored.
func (e *testEnv) rollout(t testing.TB, id string) fwmodels.Rollout {
	t.Helper()
	var r fwmodels.Rollout
	if err := e.db.Where("id = ?", id).Take(&r).Error; err != nil {
		t.Fatalf("read rollout %s: %v", id, err)
	}
	return r
}

// leaseFor enqueues and claims a fresh rollout like lease, reporting
// failures to t (lease reports to the fuzz target's F, which a fuzz
// function must not use).
func (e *testEnv) leaseFor(t testing.TB, deadline time.Duration) fwmodels.Grant {
	t.Helper()
	ctx := context.Background()
	id := fwmodels.NewRolloutID()
	if _, _, err := fwmodels.Enqueue(ctx, e.db, fwmodels.NewRollout{ID: id, TurnInput: "x", DeadlineAt: time.Now().Add(deadline), MaxAttempts: 3}); err != nil {
		t.Fatal(err)
	}
	gs, err := fwmodels.Claim(ctx, e.db, fwmodels.Claimant{CredentialID: "c", AllProjects: true}, 1, time.Hour, time.Now())
	if err != nil || len(gs) != 1 || gs[0].Rollout.ID != id {
		t.Fatalf("claim: %v %d", err, len(gs))
	}
	return gs[0]
}

// FuzzTurns: no body crashes the handler or answers outside
// 202/400/409/422; a rejected body stores nothing (409: a turn_id already
// stored under this key with another body), and an accepted one stores
// exactly the turns it reports as accepted.
func FuzzTurns(f *testing.F) {
	for _, s := range []string{
		turnBody("a", nil), `{"agent_id":"..","turns":[]}`, `{"agent_id":"a","turns":[{"turn_id":"x","input_text":null,"final_text":null,"tool_calls":[{"name":"t","outcome":"unknown","status_code":200}],"tool_calls_omitted_count":0}]}`,
		`{"agent_id":"a","turns":[{"turn_id":"x","input_text":null,"final_text":null,"tool_calls":null,"tool_calls_omitted_count":1e99,"turn_index":1e400}]}`, `[`, `null`, "\x00",
	} {
		f.Add([]byte(s))
	}
	e := newTestEnv(f, Options{})
	f.Fuzz(func(t *testing.T, body []byte) {
		before := e.rowCounts(t)
		r := e.do(http.MethodPost, "/flywheel/turns", e.agentKey, body)
		after := e.rowCounts(t)
		switch r.Status {
		case 202:
			var got struct {
				Accepted int64 `json:"accepted"`
			}
			r.decode(t, &got)
			want := before
			want.Turns += got.Accepted
			if after != want {
				t.Fatalf("202 reporting %d accepted for %q: rows went from %+v to %+v", got.Accepted, body, before, after)
			}
		case 400, 409, 422:
			if after != before {
				t.Fatalf("status %d for %q stored rows: %+v became %+v", r.Status, body, before, after)
			}
		default:
			t.Fatalf("status %d for %q: %s", r.Status, body, r.Body)
		}
	})
}

// FuzzOutput: no body crashes the handler or answers outside 200/400/409/422;
// a rejected body stores nothing (no output row, the rollout row unchanged),
// and an accepted one stores exactly one output. After an acceptance the
// next inputs go to a freshly leased rollout, so acceptance stays reachable.
func FuzzOutput(f *testing.F) {
	for _, s := range []string{
		`{"final_text":"x"}`, `{"final_text":"x","tool_calls":[{"name":"t","outcome":"ok","status_code":200,"entity_ids":{"id":"1"}}]}`,
		`{"final_text":"x","reward":1e400}`, `{"final_text":"x","llm_call_count":1e30}`, `{"final_text":"x","score":1}`,
		`{"final_text":"x","artifacts":{"a":{"sha256":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","size_bytes":1,"content":"a"}}}`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	e := newTestEnv(f, Options{})
	g := e.lease(24 * time.Hour)
	f.Fuzz(func(t *testing.T, body []byte) {
		before, row := e.rowCounts(t), e.rollout(t, g.Rollout.ID)
		r := e.output(g, string(body))
		after := e.rowCounts(t)
		switch r.Status {
		case 200:
			want := before
			want.Outputs++
			want.RolloutsWithOutput++
			if after != want {
				t.Fatalf("200 for %q: rows went from %+v to %+v, want %+v", body, before, after, want)
			}
			var got struct {
				Accepted  bool   `json:"accepted"`
				RolloutID string `json:"rollout_id"`
			}
			if err := json.Unmarshal(r.Body, &got); err != nil || !got.Accepted || got.RolloutID != g.Rollout.ID {
				t.Fatalf("200 for %q answered %s", body, r.Body)
			}
			g = e.leaseFor(t, 24*time.Hour)
		case 400, 409, 422:
			if after != before {
				t.Fatalf("status %d for %q stored rows: %+v became %+v", r.Status, body, before, after)
			}
			if now := e.rollout(t, g.Rollout.ID); !reflect.DeepEqual(now, row) {
				t.Fatalf("status %d for %q changed the rollout:\n%+v\nbecame\n%+v", r.Status, body, row, now)
			}
		default:
			t.Fatalf("status %d for %q: %s", r.Status, body, r.Body)
		}
	})
}
