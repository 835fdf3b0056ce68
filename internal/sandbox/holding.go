package sandbox

import (
	"context"
	"os"
	"sort"
)

// Holder is a provider that can list the sandboxes whose machines it
// holds, so the orphan reaper can destroy those no live workflow owns.
type Holder interface {
	Holding(ctx context.Context) ([]string, error)
}

var _ Holder = (*Local)(nil)

// Holding implements Holder: the sandboxes with an SSH server up in this
// process or a working directory left on this host (their run records
// alone, which Destroy keeps, are not a machine).
func (l *Local) Holding(context.Context) ([]string, error) {
	entries, err := os.ReadDir(l.Root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		uid := e.Name()
		if !e.IsDir() || !uidPattern.MatchString(uid) {
			continue
		}
		if _, err := os.Stat(l.Workdir(uid)); l.Live(uid) || err == nil {
			out = append(out, uid)
		}
	}
	sort.Strings(out)
	return out, nil
}
