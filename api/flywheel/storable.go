package flywheel

import (
	"strings"
	"unicode/utf8"

	"github.com/gatehouse/gatehouse/contracts"
	models "github.com/gatehouse/gatehouse/models/flywheel"
)

// The schema admits values PostgreSQL cannot store: a NUL character in a
// string (text cannot hold U+0000), bytes that are not UTF-8 inside a JSON
// value kept as received, and an occurred_at longer than its column. They
// are refused here, with the pointer, on every database alike, rather than
// failing the insert with a retryable 503 that no retry can cure.

// occurredAtMax is the occurred_at column's size.
const occurredAtMax = 64

// unstorable collects the violations of one body.
type unstorable []contracts.Violation

func (u *unstorable) text(path string, s *string) {
	if s != nil && strings.ContainsRune(*s, 0) {
		*u = append(*u, contracts.Violation{Path: path, Message: "contains a NUL character (\\u0000), which the store cannot hold"})
	}
}

func (u *unstorable) raw(path string, s *string) {
	switch {
	case s == nil:
	case !utf8.ValidString(*s):
		*u = append(*u, contracts.Violation{Path: path, Message: "contains bytes that are not UTF-8, which the store cannot hold"})
	case strings.ContainsRune(*s, 0):
		*u = append(*u, contracts.Violation{Path: path, Message: "contains a NUL byte, which the store cannot hold"})
	}
}

// turnUnstorable lists what of a decoded turn cannot be stored; at is the
// turn's pointer (/turns/<i>).
func turnUnstorable(at string, t models.Turn) unstorable {
	var u unstorable
	u.text(at+"/turn_id", &t.TurnID)
	u.text(at+"/task_id", t.TaskID)
	u.text(at+"/conversation_id", t.ConversationID)
	u.text(at+"/input_text", t.InputText)
	u.text(at+"/final_text", t.FinalText)
	u.raw(at+"/tool_calls", t.ToolCalls)
	u.raw(at+"/agent_fingerprint", t.AgentFingerprint)
	if t.OccurredAt != nil && len(*t.OccurredAt) > occurredAtMax {
		u = append(u, contracts.Violation{Path: at + "/occurred_at", Message: "longer than the 64 characters stored"})
	}
	u.text(at+"/occurred_at", t.OccurredAt)
	return u
}

// outputUnstorable lists what of a decoded output cannot be stored.
func outputUnstorable(o models.Output) unstorable {
	var u unstorable
	u.text("/final_text", &o.FinalText)
	u.text("/exclusion/detail", o.ExclusionDetail)
	u.raw("/tool_calls", o.ToolCalls)
	u.raw("/artifacts", o.Artifacts)
	u.raw("/events", o.Events)
	u.raw("/timing", o.Timing)
	u.raw("/agent_fingerprint", o.AgentFingerprint)
	return u
}
