package telemetry

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"go.temporal.io/sdk/client"
)

// taggedHandlers memoizes the Temporal SDK metrics handler's WithTags. The
// SDK tags a handler again on every RPC (the operation) and every task
// (the workflow or activity type), always with the same few tag sets, and
// the contrib handler builds a new attribute set each time: about 6% of a
// worker's CPU in a profile of find_fly_circuits. A tagged handler holds
// no state of its own (its instruments live in the meter), so one built
// earlier for the same parent and tags serves as well as a new one.
type taggedHandlers struct {
	mu sync.RWMutex
	m  map[taggedKey]client.MetricsHandler
	// nextID numbers the handlers built (the root is 0).
	nextID atomic.Uint64
}

// taggedKey names a tagged handler: its parent's id and the tags.
type taggedKey struct {
	parent uint64
	tags   string
}

// maxTaggedHandlers bounds the memo. The SDK's tag values are types,
// queues and operations, a few dozen sets; should some caller tag with
// unbounded values, handlers past the bound are built afresh each time.
const maxTaggedHandlers = 4096

func newTaggedHandlers() *taggedHandlers {
	return &taggedHandlers{m: map[taggedKey]client.MetricsHandler{}}
}

func (t *taggedHandlers) get(k taggedKey) (client.MetricsHandler, bool) {
	t.mu.RLock()
	h, ok := t.m[k]
	t.mu.RUnlock()
	return h, ok
}

func (t *taggedHandlers) put(k taggedKey, h client.MetricsHandler) {
	t.mu.Lock()
	if len(t.m) < maxTaggedHandlers {
		t.m[k] = h
	}
	t.mu.Unlock()
}

func (t *taggedHandlers) len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.m)
}

// canonicalTags is tags as one string, the same for equal maps: keys
// sorted, each key and value length-prefixed so no two maps collide.
func canonicalTags(tags map[string]string) string {
	var small [8]string
	keys := small[:0]
	for k := range tags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	n := 0
	for _, k := range keys {
		n += len(k) + len(tags[k]) + 8
	}
	var b strings.Builder
	b.Grow(n)
	for _, k := range keys {
		for _, s := range [2]string{k, tags[k]} {
			b.WriteString(strconv.Itoa(len(s)))
			b.WriteByte(':')
			b.WriteString(s)
		}
	}
	return b.String()
}
