package deploy

import (
	"testing"

	"github.com/gatehouse/gatehouse/internal/sandbox"
)

func TestBuild_LocalCommandsRunConfinedUnlessTheOptInIsSet(t *testing.T) {
	for value, want := range map[string]bool{"": false, "false": false, "true": true} {
		ps, err := Build(configWith(t, map[string]string{"GATEHOUSE_SANDBOX_UNISOLATED_I_UNDERSTAND": value}), Clients{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := ps.Get(sandbox.LocalName)
		if err != nil {
			t.Fatal(err)
		}
		if l, ok := p.(*sandbox.Local); !ok || l.Unconfined() != want {
			t.Errorf("GATEHOUSE_SANDBOX_UNISOLATED_I_UNDERSTAND=%q: provider %T unconfined %v, want %v", value, p, ok && l.Unconfined(), want)
		}
	}
}
