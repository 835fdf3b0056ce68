package flylab

import (
	"strconv"
	"strings"
)

// ResolvePointer follows an RFC 6901 JSON Pointer into decoded JSON; the
// empty pointer is the document itself.
func ResolvePointer(doc any, pointer string) (any, bool) {
	if pointer == "" {
		return doc, true
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, false
	}
	cur := doc
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := cur.(type) {
		case map[string]any:
			v, ok := n[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			cur = n[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func escapePointerToken(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// parentPointer drops the last token ("/a/b" → "/a", "/a" → "").
func parentPointer(pointer string) string {
	if i := strings.LastIndex(pointer, "/"); i > 0 {
		return pointer[:i]
	}
	return ""
}
