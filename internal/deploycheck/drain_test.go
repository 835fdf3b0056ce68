package deploycheck

import (
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/config"
)

// A stopped worker drains its running activities for
// GATEHOUSE_WORKER_STOP_TIMEOUT; compose and the chart must give it longer
// than that before they SIGKILL it, or a rolling update retries the
// activities a drain would have finished.
func TestDeployments_GiveTheWorkerItsDrainTime(t *testing.T) {
	cfg, err := config.FromLookup(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	drain := cfg.WorkerStopTimeout
	p := exampleProject(t)
	w, err := p.GetService("worker")
	if err != nil {
		t.Fatal(err)
	}
	if w.StopGracePeriod == nil || time.Duration(*w.StopGracePeriod) <= drain {
		t.Errorf("compose worker stop_grace_period %v must exceed the %s drain", w.StopGracePeriod, drain)
	}
	for _, set := range valueSets {
		m := rendered(t, set)
		d := m.deployments["gatehouse-worker"]
		if d == nil {
			t.Fatalf("%s: no worker deployment", set)
		}
		grace := d.Spec.Template.Spec.TerminationGracePeriodSeconds
		if grace == nil || time.Duration(*grace)*time.Second <= drain {
			t.Errorf("%s: worker terminationGracePeriodSeconds %v must exceed the %s drain", set, grace, drain)
		}
	}
}
