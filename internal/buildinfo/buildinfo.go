// Package buildinfo says which build of Gatehouse is running: the release
// version, the commit and its time, stamped with -ldflags by the Dockerfile
// or read from the Go toolchain's VCS stamp of a local build.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// Stamped by the release build:
//
//	go build -ldflags "-X github.com/gatehouse/gatehouse/internal/buildinfo.version=v1.2.3
//	  -X github.com/gatehouse/gatehouse/internal/buildinfo.commit=<sha>
//	  -X github.com/gatehouse/gatehouse/internal/buildinfo.date=<RFC 3339>"
var version, commit, date string

// Info describes one build.
type Info struct {
	// Version is the release version, "dev" for an unreleased build.
	Version string `json:"version"`
	// Commit is the source revision ("unknown" when not recorded); a
	// "+dirty" suffix marks uncommitted changes.
	Commit string `json:"commit"`
	// Date is when the commit was made (RFC 3339), or "" when unknown.
	Date string `json:"date,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"go_version"`
}

var (
	once sync.Once
	info Info
)

// Get returns this binary's build information.
func Get() Info {
	once.Do(func() {
		bi, _ := debug.ReadBuildInfo()
		info = resolve(version, commit, date, bi)
	})
	return info
}

// resolve prefers what ldflags stamped and falls back to the toolchain's
// VCS settings (go build in a git checkout records vcs.revision).
func resolve(version, commit, date string, bi *debug.BuildInfo) Info {
	in := Info{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version()}
	if bi != nil {
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		if in.Commit == "" && settings["vcs.revision"] != "" {
			in.Commit = settings["vcs.revision"]
			if settings["vcs.modified"] == "true" {
				in.Commit += "+dirty"
			}
		}
		if in.Date == "" {
			in.Date = settings["vcs.time"]
		}
		if in.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			in.Version = bi.Main.Version
		}
	}
	if in.Version == "" {
		in.Version = "dev"
	}
	if in.Commit == "" {
		in.Commit = "unknown"
	}
	return in
}
