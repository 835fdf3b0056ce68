package config

import (
	"testing"
	"time"
)

func TestFromLookup_SandboxQuotasDefaultAndRefuseNonsense(t *testing.T) {
	t.Parallel()
	c, err := FromLookup(lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Sandbox; s.MaxLivePerProject != 4 || s.MaxGPUsPerProject != 2 || s.MaxLifetime != 24*time.Hour || s.ReapInterval != 10*time.Minute {
		t.Fatalf("quota defaults %+v", s)
	}
	c, err = FromLookup(lookup(map[string]string{"GATEHOUSE_SANDBOX_MAX_LIVE_PER_PROJECT": "9", "GATEHOUSE_SANDBOX_MAX_GPUS_PER_PROJECT": "0",
		"GATEHOUSE_SANDBOX_MAX_LIFETIME": "6h", "GATEHOUSE_SANDBOX_REAP_INTERVAL": "2m"}))
	if err != nil || c.Sandbox.MaxLivePerProject != 9 || c.Sandbox.MaxGPUsPerProject != 0 || c.Sandbox.MaxLifetime != 6*time.Hour || c.Sandbox.ReapInterval != 2*time.Minute {
		t.Fatalf("set quotas %+v %v", c.Sandbox, err)
	}
	for name, bad := range map[string]string{"GATEHOUSE_SANDBOX_MAX_LIVE_PER_PROJECT": "0", "GATEHOUSE_SANDBOX_MAX_GPUS_PER_PROJECT": "-1",
		"GATEHOUSE_SANDBOX_MAX_LIFETIME": "10s", "GATEHOUSE_SANDBOX_REAP_INTERVAL": "5s"} {
		if _, err := FromLookup(lookup(map[string]string{name: bad})); err == nil {
			t.Errorf("%s=%s accepted", name, bad)
		}
	}
}
