package research

import "sync"

// maxCachedTLDRs bounds the TLDR cache; it starts over when full.
const maxCachedTLDRs = 4096

// tldrCache keeps the TLDR of each uploaded artifact, keyed by its id and
// digest: the bytes behind a digest never change, so reflection.get reads
// a blob once per api process, not on every call. The zero value is ready.
type tldrCache struct {
	mu sync.Mutex
	m  map[string]string
}

func (c *tldrCache) get(id, sha string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[id+"@"+sha]
	return v, ok
}

func (c *tldrCache) put(id, sha, tldr string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedTLDRs {
		c.m = map[string]string{}
	}
	c.m[id+"@"+sha] = tldr
}
