package telemetry

import "strings"

// mayHoldSecret reports whether s holds one of secretPattern's prefixes
// followed by '_' anywhere ("mk_", "op_", "cap_", "lt_", "gw_", "rk_"). It
// ignores the word boundary and the length the pattern also requires, so
// it is true for every string the pattern matches in: false means Redact
// has nothing to replace.
func mayHoldSecret(s string) bool {
	for i := strings.IndexByte(s, '_'); i >= 0; {
		if i >= 2 && credentialPrefixes[s[i-2:i]] || i >= 3 && s[i-3:i] == "cap" {
			return true
		}
		next := strings.IndexByte(s[i+1:], '_')
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

// credentialPrefixes are secretPattern's two-letter prefixes.
var credentialPrefixes = map[string]bool{"mk": true, "op": true, "lt": true, "gw": true, "rk": true}
