package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestTrimRuns_BoundsEachOutputAndTheSumNewestFirst(t *testing.T) {
	runs := []Run{{Seq: 1, Output: strings.Repeat("a", 10)}, {Seq: 2, Output: strings.Repeat("b", 10)}, {Seq: 3, Output: "cccccc"}}
	got := TrimRuns(runs, 8, 12)
	if got[2].Output != "cccccc" || got[2].Truncated {
		t.Fatalf("newest run: %+v", got[2])
	}
	if got[1].Output != "bbbbbb" || !got[1].Truncated {
		t.Fatalf("middle run keeps what the total leaves, cut at 8 then 6: %+v", got[1])
	}
	if got[0].Output != "" || !got[0].Truncated {
		t.Fatalf("oldest run is emptied: %+v", got[0])
	}
	if runs[0].Output != strings.Repeat("a", 10) || runs[1].Truncated {
		t.Fatalf("input modified: %+v", runs)
	}
	if all := TrimRuns(runs, 0, 0); all[0].Output != runs[0].Output || all[0].Truncated {
		t.Fatalf("no bounds cut something: %+v", all)
	}
}

func TestWaitRuns_ReturnsWhenNothingRunsOrTheWaitEnds(t *testing.T) {
	reads := 0
	settled, err := WaitRuns(context.Background(), func() ([]Run, error) {
		reads++
		if reads < 3 {
			return []Run{{Status: RunRunning}}, nil
		}
		return []Run{{Status: RunExited}}, nil
	}, time.Minute, time.Millisecond)
	if err != nil || reads != 3 || Running(settled) != 0 {
		t.Fatalf("reads %d, runs %+v, err %v", reads, settled, err)
	}
	start := time.Now()
	still, err := WaitRuns(context.Background(), func() ([]Run, error) { return []Run{{Status: RunRunning}}, nil }, 30*time.Millisecond, 5*time.Millisecond)
	if err != nil || Running(still) != 1 || time.Since(start) < 30*time.Millisecond {
		t.Fatalf("wait ended early or wrong: %+v %v after %v", still, err, time.Since(start))
	}
	boom := errors.New("boom")
	if _, err := WaitRuns(context.Background(), func() ([]Run, error) { return nil, boom }, time.Minute, time.Millisecond); !errors.Is(err, boom) {
		t.Fatalf("read error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := WaitRuns(ctx, func() ([]Run, error) { return []Run{{Status: RunRunning}}, nil }, time.Minute, time.Millisecond); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
}
