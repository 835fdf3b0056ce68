package contracts

import (
	"errors"
	"strings"
	"testing"
)

func mustFlywheel(t *testing.T) *Flywheel {
	t.Helper()
	f, err := CompileFlywheel()
	if err != nil {
		t.Fatalf("compile flywheel: %v", err)
	}
	return f
}

func TestFlywheel_LookaheadPatternRejectsDotSegments(t *testing.T) {
	t.Parallel()
	f := mustFlywheel(t)
	cases := []struct {
		agentID string
		ok      bool
	}{
		{"agent-1", true},
		{"a.b", true},
		{"...", true},
		{".", false},
		{"..", false},
		{" lead", false},
		{"trail ", false},
		{"a/b", false},
		{`a\b`, false},
		{"ctl\u0007", false},
	}
	for _, tc := range cases {
		body := `{"agent_id":` + quote(tc.agentID) + `,"turns":[{"turn_id":"t1","input_text":"hi","final_text":"ok","tool_calls":[],"tool_calls_omitted_count":0}]}`
		v, err := f.ProductionTurnBatch.ValidateJSON([]byte(body))
		if err != nil {
			t.Fatalf("%q: %v", tc.agentID, err)
		}
		if (len(v) == 0) != tc.ok {
			t.Errorf("agent_id %q: want ok=%v, got violations %v", tc.agentID, tc.ok, v)
		}
		if !tc.ok && (len(v) == 0 || v[0].Path != "/agent_id") {
			t.Errorf("agent_id %q: want a violation at /agent_id, got %v", tc.agentID, v)
		}
	}
}

func TestFlywheel_UnknownOutcomeRequiresNullStatus(t *testing.T) {
	t.Parallel()
	f := mustFlywheel(t)
	base := `{"agent_id":"a","turns":[{"turn_id":"t","input_text":null,"final_text":null,"tool_calls_omitted_count":0,"tool_calls":[{"name":"x","outcome":"unknown","status_code":%s}]}]}`
	ok, _ := f.ProductionTurnBatch.ValidateJSON([]byte(strings.Replace(base, "%s", "null", 1)))
	if len(ok) != 0 {
		t.Fatalf("unknown + null should pass, got %v", ok)
	}
	bad, _ := f.ProductionTurnBatch.ValidateJSON([]byte(strings.Replace(base, "%s", "200", 1)))
	if len(bad) == 0 {
		t.Fatal("unknown + 200 must be rejected")
	}
	if !strings.HasPrefix(bad[0].Path, "/turns/0/tool_calls/0") {
		t.Errorf("violation path %q should point into the tool call", bad[0].Path)
	}
}

func TestSchema_MalformedJSONIsDistinguished(t *testing.T) {
	t.Parallel()
	f := mustFlywheel(t)
	_, err := f.ProductionTurnBatch.ValidateJSON([]byte(`{"agent_id":`))
	if !errors.Is(err, ErrMalformedJSON) {
		t.Fatalf("want ErrMalformedJSON, got %v", err)
	}
}

func TestFlyLab_EveryToolInputSchemaCompiles(t *testing.T) {
	t.Parallel()
	c, err := ParseFlyLab()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tools) != 8 {
		t.Fatalf("want 8 FlyLab tools, got %d", len(c.Tools))
	}
	schemas, err := CompileFlyLabInputs(c)
	if err != nil {
		t.Fatal(err)
	}
	v, err := schemas["design_stimulation_trial"].ValidateJSON([]byte(`{"page_session_id":"x"}`))
	if err != nil || len(v) == 0 {
		t.Fatalf("an incomplete design must fail validation, got %v %v", v, err)
	}
}

func TestPointer_EscapesPerRFC6901(t *testing.T) {
	t.Parallel()
	if got := Pointer([]string{"a/b", "m~n", "0"}); got != "/a~1b/m~0n/0" {
		t.Fatalf("got %q", got)
	}
}

func quote(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r < 0x20:
			sb.WriteString(`\u00`)
			sb.WriteString(string("0123456789abcdef"[r>>4]))
			sb.WriteString(string("0123456789abcdef"[r&15]))
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
