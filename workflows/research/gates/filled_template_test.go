package gates

import "strings"

// FilledTemplate returns a template with its placeholders replaced: what a
// diligent agent would upload.
func FilledTemplate(role string) string {
	return strings.ReplaceAll(Templates[role].Text, Placeholder, "Filled:")
}
