package research

import (
	"errors"
	"strings"
	"testing"

	models "github.com/gatehouse/gatehouse/models/research"
)

func TestCodeEvidence_ChecksBranchAndCommitIDs(t *testing.T) {
	t.Parallel()
	full := strings.Repeat("ab", 20)
	ok := []struct {
		ev                 map[string]any
		branch, base, head string
	}{
		{nil, "", "", ""},
		{map[string]any{"reason": "x", "branch": nil}, "", "", ""},
		{map[string]any{"branch": "refs/heads/experiments/a", "base_sha": strings.ToUpper(full), "head_sha": "abc1234"}, "experiments/a", full, "abc1234"},
	}
	for _, c := range ok {
		b, base, head, err := codeEvidence(c.ev)
		if err != nil || b != c.branch || base != c.base || head != c.head {
			t.Errorf("codeEvidence(%v) = %q %q %q %v", c.ev, b, base, head, err)
		}
	}
	bad := []struct {
		ev      map[string]any
		pointer string
	}{
		{map[string]any{"branch": 7}, "/evidence/branch"},
		{map[string]any{"branch": "a..b"}, "/evidence/branch"},
		{map[string]any{"branch": "ok", "base_sha": "ABC1234"}, "/evidence/base_sha"},
		{map[string]any{"base_sha": "abc"}, "/evidence/base_sha"},
		{map[string]any{"head_sha": []any{"abc1234"}}, "/evidence/head_sha"},
		{map[string]any{"head_sha": strings.Repeat("g", 40)}, "/evidence/head_sha"},
	}
	for _, c := range bad {
		_, _, _, err := codeEvidence(c.ev)
		var te *ToolError
		if !errors.As(err, &te) || te.Code != "invalid_input" || te.Pointer != c.pointer {
			t.Errorf("codeEvidence(%v) = %v, want invalid_input at %s", c.ev, err, c.pointer)
		}
	}
}

func TestCodeView_UnrecordedValuesAreNull(t *testing.T) {
	t.Parallel()
	str := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	v := codeView(modelsCode("work/a", "", "abc1234"), true)
	if str(v.Branch) != "work/a" || v.BaseSHA != nil || str(v.HeadSHA) != "abc1234" {
		t.Fatalf("codeView = %+v", v)
	}
	if v := codeView(modelsCode("", "", ""), false); v.Branch != nil || v.BaseSHA != nil || v.HeadSHA != nil {
		t.Fatalf("nothing recorded: %+v", v)
	}
}

func modelsCode(branch, base, head string) models.ExperimentCode {
	return models.ExperimentCode{Branch: branch, BaseSHA: base, HeadSHA: head}
}
