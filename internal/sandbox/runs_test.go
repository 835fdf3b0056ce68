package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestTrimRuns_BoundsEachOutputAndTheSumNewestFirst(t *testing.T) {
	runs := []Run{{Seq: 1, Command: "a", Output: strings.Repeat("a", 1000)}, {Seq: 2, Command: "b", Output: strings.Repeat("b", 1000)},
		{Seq: 3, Command: "c", Output: strings.Repeat("c", 300)}}
	// newest: 201 + 300; middle: 201 + what is left of 1,202; oldest: no room.
	got := TrimRuns(runs, 800, 1202)
	if len(got) != 2 || got[0].Seq != 2 || got[1].Seq != 3 {
		t.Fatalf("kept runs %+v, want 2 and 3", got)
	}
	if got[1].Output != strings.Repeat("c", 300) || got[1].Truncated {
		t.Fatalf("newest run: %+v", got[1])
	}
	if got[0].Output != strings.Repeat("b", 500) || !got[0].Truncated {
		t.Fatalf("middle run keeps what the total leaves, cut at 800 then 500: %d bytes, truncated %v", len(got[0].Output), got[0].Truncated)
	}
	if runs[0].Output != strings.Repeat("a", 1000) || runs[1].Truncated {
		t.Fatalf("input modified: %+v", runs[1])
	}
	if all := TrimRuns(runs, 0, 0); len(all) != 3 || all[0].Output != runs[0].Output || all[0].Truncated {
		t.Fatalf("no bounds cut something: %d runs", len(all))
	}
	long := TrimRuns([]Run{{Seq: 1, Command: strings.Repeat("x", 10000), Output: "ok\xff"}}, 0, 1<<20)
	if len(long) != 1 || len(long[0].Command) > MaxRunCommand+len("…") || !utf8.ValidString(long[0].Output) {
		t.Fatalf("a long command and invalid UTF-8: command %d bytes, output %q", len(long[0].Command), long[0].Output)
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
