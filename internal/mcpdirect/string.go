package mcpdirect

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// appendString appends s, valid UTF-8, as a JSON string: quotes,
// backslashes and control characters escaped, and U+2028 and U+2029 too,
// as encoding/json does, so the text is safe inside a script. Runs of
// other bytes are copied whole, which is what makes a 50 KB text cheap.
func appendString(out []byte, s string) []byte {
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			out = append(out, s[start:i]...)
			switch b {
			case '"', '\\':
				out = append(out, '\\', b)
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' {
			out = append(out, s[start:i]...)
			out = append(out, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			start = i + size
		}
		i += size
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}
