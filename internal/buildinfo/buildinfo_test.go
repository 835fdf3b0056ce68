package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestResolve_StampedValuesWin(t *testing.T) {
	bi := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.time", Value: "2026-01-01T00:00:00Z"}}}
	got := resolve("v1.2.3", "0123456", "2026-12-01T00:00:00Z", bi)
	if got.Version != "v1.2.3" || got.Commit != "0123456" || got.Date != "2026-12-01T00:00:00Z" {
		t.Fatalf("stamped build resolved to %+v", got)
	}
}

func TestResolve_FallsBackToTheToolchainsVCSStamp(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "feedface"}, {Key: "vcs.time", Value: "2026-11-30T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := resolve("", "", "", bi)
	if got.Version != "dev" || got.Commit != "feedface+dirty" || got.Date != "2026-11-30T10:00:00Z" || got.GoVersion == "" {
		t.Fatalf("unstamped build resolved to %+v", got)
	}
	if none := resolve("", "", "", nil); none.Version != "dev" || none.Commit != "unknown" {
		t.Fatalf("no build info resolved to %+v", none)
	}
}

func TestCollector_ExportsBuildInfo(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(Collector())
	families, err := reg.Gather()
	if err != nil || len(families) != 1 || families[0].GetName() != "gatehouse_build_info" || len(families[0].GetMetric()) != 1 {
		t.Fatalf("gathered %v (%v)", families, err)
	}
	m := families[0].GetMetric()[0]
	labels := map[string]string{}
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	i := Get()
	if m.GetGauge().GetValue() != 1 || labels["version"] != i.Version || labels["commit"] != i.Commit || labels["go_version"] != i.GoVersion {
		t.Fatalf("gatehouse_build_info %v = %v, want the build %+v", labels, m.GetGauge().GetValue(), i)
	}
}
