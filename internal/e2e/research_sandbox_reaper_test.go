package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	researchact "github.com/gatehouse/gatehouse/activities/research"
	researchwf "github.com/gatehouse/gatehouse/workflows/research"
)

// TestSandbox_AGoneHostsReaperScheduleIsRetiredALiveHostsKept: a host
// that no longer polls its queue (a replaced pod) has its reaper schedule
// deleted instead of failing every interval forever; the schedule of the
// host this stack's worker runs on, which polls, stays.
func TestSandbox_AGoneHostsReaperScheduleIsRetiredALiveHostsKept(t *testing.T) {
	s := Shared(t)
	ctx := context.Background()
	c := s.Client(t)
	prefix := researchwf.SandboxReaperScheduleID + "-"
	var live string
	it, err := c.ScheduleClient().List(ctx, client.ScheduleListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(e.ID, prefix) && strings.Contains(e.ID, researchwf.SandboxHostQueueSuffix) && !strings.Contains(e.ID, "-gone-") {
			live = strings.TrimPrefix(e.ID, prefix)
		}
	}
	if live == "" {
		t.Fatal("the stack's worker created no host reaper schedule")
	}
	gone := strings.SplitN(live, researchwf.SandboxHostQueueSuffix, 2)[0] + researchwf.SandboxHostQueueSuffix + uniq("gone")
	if err := researchact.EnsureSandboxReapers(ctx, c, strings.SplitN(live, researchwf.SandboxHostQueueSuffix, 2)[0], gone, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ScheduleClient().GetHandle(ctx, prefix+gone).Describe(ctx); err != nil {
		t.Fatalf("the gone host's schedule was not created: %v", err)
	}
	if retired, err := researchact.RetireHostReaper(ctx, c, gone, time.Now()); err != nil || !retired {
		t.Fatalf("retire the gone host's reaper: %v %v", retired, err)
	}
	var notFound *serviceerror.NotFound
	if _, err := c.ScheduleClient().GetHandle(ctx, prefix+gone).Describe(ctx); !errors.As(err, &notFound) {
		t.Fatalf("the gone host's schedule is still there: %v", err)
	}
	if retired, err := researchact.RetireHostReaper(ctx, c, live, time.Now()); err != nil || retired {
		t.Fatalf("retire the live host's reaper: %v %v", retired, err)
	}
	if _, err := c.ScheduleClient().GetHandle(ctx, prefix+live).Describe(ctx); err != nil {
		t.Fatalf("the live host's schedule is gone: %v", err)
	}
}
