package reflectgates

import (
	"strings"

	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// FilledTemplate returns a template with its placeholders replaced: what a
// diligent agent would upload.
func FilledTemplate(role string) string {
	return strings.ReplaceAll(Templates[role].Text, gates.Placeholder, "Filled:")
}
