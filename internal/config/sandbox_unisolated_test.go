package config

import (
	"strings"
	"testing"
)

func TestFromLookup_UnisolatedSandboxesAreOffUnlessSaidExactly(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]bool{"": false, "false": false, "0": false, "true": true, "1": true} {
		c, err := FromLookup(lookup(map[string]string{"GATEHOUSE_SANDBOX_UNISOLATED_I_UNDERSTAND": value}))
		if err != nil || c.Sandbox.UnisolatedIUnderstand != want {
			t.Errorf("%q: got %v %v, want %v", value, c.Sandbox.UnisolatedIUnderstand, err, want)
		}
	}
	for _, value := range []string{"yes", "on", "maybe"} {
		_, err := FromLookup(lookup(map[string]string{"GATEHOUSE_SANDBOX_UNISOLATED_I_UNDERSTAND": value}))
		if err == nil || !strings.Contains(err.Error(), "GATEHOUSE_SANDBOX_UNISOLATED_I_UNDERSTAND") {
			t.Errorf("%q: want a startup error naming the variable, got %v", value, err)
		}
	}
	if c, _ := FromLookup(lookup(map[string]string{"GATEHOUSE_SANDBOX_UNISOLATED": "true", "GATEHOUSE_SANDBOX_ISOLATED": "false"})); c.Sandbox.UnisolatedIUnderstand {
		t.Error("a look-alike variable turned isolation off")
	}
}
