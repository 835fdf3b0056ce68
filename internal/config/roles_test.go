package config

import "testing"

func TestReaders_EveryVariableHasItsRolesAndNoRowIsStale(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, v := range Vars {
		known[v.Name] = true
		if len(readers[v.Name]) == 0 {
			t.Errorf("%s: no role reads it in readers", v.Name)
		}
	}
	for name := range readers {
		if !known[name] {
			t.Errorf("readers names %s, which Vars lacks", name)
		}
	}
}

func TestVarsFor_EachRoleSeesOnlyWhatItReads(t *testing.T) {
	t.Parallel()
	has := func(role Role, name string) bool {
		for _, v := range VarsFor(role) {
			if v.Name == name {
				return true
			}
		}
		return false
	}
	cases := []struct {
		role Role
		name string
		want bool
	}{
		{RoleDatabase, "GATEHOUSE_DATABASE_URL", true},
		{RoleDatabase, "GATEHOUSE_HTTP_ADDR", false},
		{RoleDatabase, "GATEHOUSE_TEMPORAL_ADDRESS", false},
		{RoleWorker, "GATEHOUSE_WORKER_HEALTH_ADDR", true},
		{RoleWorker, "GATEHOUSE_DEV_API_KEY", false},
		{RoleWorker, "GATEHOUSE_LLM_UPSTREAM_URL", false},
		{RoleAPI, "GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN", true},
		{RoleAPI, "GATEHOUSE_WORKER_HEALTH_ADDR", false},
		{RoleAPI, "GATEHOUSE_METRICS_ADDR", true},
		{RoleWorker, "GATEHOUSE_METRICS_ADDR", false},
		{RoleDev, "GATEHOUSE_METRICS_ADDR", false},
		{RoleDev, "GATEHOUSE_TEMPORAL_ADDRESS", false},
		{RoleDev, "GATEHOUSE_DEV_UI_ADDR", true},
		{RoleHealthcheck, "GATEHOUSE_HTTP_ADDR", true},
		{RoleHealthcheck, "GATEHOUSE_DATABASE_URL", false},
	}
	for _, tc := range cases {
		if got := has(tc.role, tc.name); got != tc.want {
			t.Errorf("%s reads %s: %v, want %v", tc.role, tc.name, got, tc.want)
		}
	}
	if len(VarsFor(RoleDatabase)) >= len(Vars)/2 {
		t.Errorf("migrate would still show %d of %d flags", len(VarsFor(RoleDatabase)), len(Vars))
	}
}
