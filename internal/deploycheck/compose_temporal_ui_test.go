package deploycheck

import (
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
)

// TestCompose_TemporalIsReachableFromThisMachineOnlyAndTheUIReadOnly: the
// Web UI was published on every interface with write actions on, so
// anyone on the network could signal (approve), reset or terminate any
// workflow. Temporal's frontend and UI now publish on loopback only, and
// the UI's write actions are off unless .env turns them on.
func TestCompose_TemporalIsReachableFromThisMachineOnlyAndTheUIReadOnly(t *testing.T) {
	project := exampleProject(t)
	for _, name := range []string{"temporal", "temporal-ui", "postgres"} {
		for _, p := range project.Services[name].Ports {
			if p.Published != "" && p.HostIP != "127.0.0.1" {
				t.Errorf("%s publishes %s:%d on %q, want 127.0.0.1", name, p.Published, p.Target, p.HostIP)
			}
		}
	}
	if ui := project.Services["temporal-ui"]; len(ui.Ports) != 1 || ui.Ports[0].HostIP != "127.0.0.1" {
		t.Errorf("temporal-ui ports %+v", ui.Ports)
	}
	if v := composeEnv(project.Services["temporal-ui"], "TEMPORAL_DISABLE_WRITE_ACTIONS"); v != "true" {
		t.Errorf("temporal-ui TEMPORAL_DISABLE_WRITE_ACTIONS = %q, want true by default", v)
	}
	opted, err := loadCompose(t, map[string]string{"POSTGRES_USER": "u", "POSTGRES_PASSWORD": "p", "GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN": "t",
		"TEMPORAL_UI_DISABLE_WRITE_ACTIONS": "false"})
	if err != nil {
		t.Fatal(err)
	}
	if v := composeEnv(opted.Services["temporal-ui"], "TEMPORAL_DISABLE_WRITE_ACTIONS"); v != "false" {
		t.Errorf("the .env opt-in gave %q", v)
	}
}

// composeEnv is a service's environment value ("" when unset).
func composeEnv(s types.ServiceConfig, name string) string {
	if v := s.Environment[name]; v != nil {
		return *v
	}
	return ""
}
