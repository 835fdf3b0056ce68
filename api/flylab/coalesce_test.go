package flylab

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

func TestCoalescer_ConcurrentCopiesSendOnceAndReplay(t *testing.T) {
	t.Parallel()
	var c coalescer
	var sends atomic.Int32
	release := make(chan struct{})
	send := func() (wf.ToolOutcome, error) {
		sends.Add(1)
		<-release
		return wf.ToolOutcome{ResultKey: "r1", CreatedArtifactIDs: []string{"a1"}}, nil
	}
	const copies = 50
	outs := make([]wf.ToolOutcome, copies)
	var wg sync.WaitGroup
	for i := range copies {
		wg.Go(func() {
			var err error
			outs[i], err = c.do(context.Background(), "k", send)
			if err != nil {
				t.Error(err)
			}
		})
	}
	for c.joined("k") < copies-1 { // every other copy waits on the first
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if n := sends.Load(); n != 1 {
		t.Fatalf("%d copies sent %d Updates, want 1", copies, n)
	}
	first := 0
	for _, o := range outs {
		if o.ResultKey != "r1" {
			t.Fatalf("a copy got another result: %+v", o)
		}
		if !o.Replay {
			first++
			if len(o.CreatedArtifactIDs) != 1 {
				t.Fatalf("the sender must report what it created: %+v", o)
			}
		} else if len(o.CreatedArtifactIDs) != 0 {
			t.Fatalf("a replay created nothing: %+v", o)
		}
	}
	if first != 1 {
		t.Fatalf("%d copies answered as the original, want 1", first)
	}
	// The flight is over: the next call is a new send.
	if _, err := c.do(context.Background(), "k", func() (wf.ToolOutcome, error) { sends.Add(1); return wf.ToolOutcome{}, nil }); err != nil || sends.Load() != 2 {
		t.Fatalf("a later call must send again: err %v, sends %d", err, sends.Load())
	}
}

func TestCoalescer_JoinerResendsWhenTheSenderWasCancelled(t *testing.T) {
	t.Parallel()
	var c coalescer
	started := make(chan struct{})
	leaderCtx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = c.do(leaderCtx, "k", func() (wf.ToolOutcome, error) {
			close(started)
			<-leaderCtx.Done()
			return wf.ToolOutcome{}, leaderCtx.Err()
		})
	}()
	<-started
	done := make(chan wf.ToolOutcome)
	go func() {
		out, err := c.do(context.Background(), "k", func() (wf.ToolOutcome, error) { return wf.ToolOutcome{ResultKey: "own"}, nil })
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	for c.joined("k") < 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if out := <-done; out.ResultKey != "own" {
		t.Fatalf("a joiner whose sender gave up must send its own call: %+v", out)
	}
}
