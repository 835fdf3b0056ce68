package devserver

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// startupLogger is the server's logger. Until the server has started, a
// Fatal (a service whose gRPC listener could not bind, …) panics with a
// startupFatal, which startServer returns as its error: a no-op logger's
// Fatal would return and leave the service to serve a nil listener (a
// panic in a goroutine of its own, which ends the process), and zap's
// would exit the process. After the start, Fatal is the logger's own.
type startupLogger struct {
	log.Logger
	started *atomic.Bool
}

// Fatal panics with startupFatal while the server starts.
func (l startupLogger) Fatal(msg string, tags ...tag.Tag) {
	if l.started.Load() {
		l.Logger.Fatal(msg, tags...)
		return
	}
	panic(startupFatal{msg: msg, tags: tags})
}

// startupFatal is a Fatal logged while the server started.
type startupFatal struct {
	msg  string
	tags []tag.Tag
}

func (f startupFatal) Error() string {
	parts := make([]string, 0, len(f.tags))
	for _, t := range f.tags {
		parts = append(parts, fmt.Sprintf("%s=%v", t.Key(), t.Value()))
	}
	return "temporal server start: " + f.msg + " (" + strings.Join(parts, ", ") + ")"
}

// Unwrap is the error a tag carries, and ErrPortInUse when that is an
// address already in use, so a caller can pick fresh ports.
func (f startupFatal) Unwrap() []error {
	var errs []error
	for _, t := range f.tags {
		z, ok := t.(tag.ZapTag)
		if !ok {
			continue
		}
		if err, ok := z.Field().Interface.(error); ok {
			errs = append(errs, err)
			if errors.Is(err, syscall.EADDRINUSE) {
				errs = append(errs, ErrPortInUse)
			}
		}
	}
	return errs
}
