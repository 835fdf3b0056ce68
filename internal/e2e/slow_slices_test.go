package e2e

import (
	"fmt"
	"strings"
	"time"
)

// timedLatency is one request's latency and when it was due, as an offset
// from the start of its phase.
type timedLatency struct {
	due, took time.Duration
}

// tookOf is the latencies of tl, in its order.
func tookOf(tl []timedLatency) []time.Duration {
	took := make([]time.Duration, len(tl))
	for i, x := range tl {
		took[i] = x.took
	}
	return took
}

// slowSlice is how wide a slice slowBySlice counts in, and slowOver the
// latency it counts as slow.
const (
	slowSlice = 100 * time.Millisecond
	slowOver  = 10 * time.Millisecond
)

// slowBySlice says, for each slowSlice after from in which a request was
// due, how many of its requests took over slowOver and the slowest:
// slow requests bunched in one slice point at a stall (a collection, a
// checkpoint, a burst of background work), spread over all of them at
// queueing.
func slowBySlice(tl []timedLatency, from time.Duration) string {
	type slice struct {
		n, slow int
		worst   time.Duration
	}
	var bySlice []slice
	for _, x := range tl {
		i := int((x.due - from) / slowSlice)
		if i < 0 {
			i = 0
		}
		for len(bySlice) <= i {
			bySlice = append(bySlice, slice{})
		}
		s := &bySlice[i]
		s.n++
		if x.took > slowOver {
			s.slow++
		}
		s.worst = max(s.worst, x.took)
	}
	var b strings.Builder
	for i, s := range bySlice {
		if s.n > 0 {
			fmt.Fprintf(&b, " %d:%d/%d<%dms", i, s.slow, s.n, s.worst.Milliseconds())
		}
	}
	return b.String()
}
