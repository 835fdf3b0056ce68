package flylab

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/go-openapi/jsonpointer"
)

// This file is a reader written apart from the server's code (no
// science.CanonicalJSON, no science.DeriveProvenance): what an agent or a
// reviewer would write from the contract and RFC 8785 alone.

// readerPointer follows an RFC 6901 pointer with an independent
// implementation (go-openapi/jsonpointer), not the server's resolver.
func readerPointer(doc any, p string) (any, bool) {
	ptr, err := jsonpointer.New(p)
	if err != nil {
		return nil, false
	}
	v, _, err := ptr.Get(doc)
	return v, err == nil
}

// readerLabels is the set of labels "found under" a path: every value of
// a "provenance" field in the subtree, outside the skipped paths; for a
// scalar, the "provenance" of the object holding it.
func readerLabels(doc any, p string, skip []string) map[string]bool {
	out := map[string]bool{}
	node, _ := readerPointer(doc, p)
	if _, container := node.(map[string]any); !container {
		if _, list := node.([]any); !list {
			parent, _ := readerPointer(doc, p[:strings.LastIndex(p, "/")])
			if obj, ok := parent.(map[string]any); ok {
				addProvenance(obj["provenance"], out)
			}
			return out
		}
	}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		for _, s := range skip {
			if at == s {
				return
			}
		}
		switch n := v.(type) {
		case map[string]any:
			addProvenance(n["provenance"], out)
			for k, child := range n {
				walk(child, at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
			}
		case []any:
			for i, child := range n {
				walk(child, at+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(node, p)
	return out
}

func addProvenance(v any, out map[string]bool) {
	known := map[string]bool{"measured": true, "derived": true, "connectome_inferred": true,
		"simulation_predicted": true, "agent_hypothesized": true}
	switch p := v.(type) {
	case string:
		if known[p] {
			out[p] = true
		}
	case []any:
		for _, x := range p {
			if s, ok := x.(string); ok && known[s] {
				out[s] = true
			}
		}
	}
}

func labelSet(v any) map[string]bool {
	out := map[string]bool{}
	list, _ := v.([]any)
	for _, x := range list {
		out[fmt.Sprint(x)] = true
	}
	return out
}

// readerManifestHash recomputes "sha256:" + hex(SHA-256(JCS(payload))) from
// the export's bytes.
func readerManifestHash(exportJSON []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(exportJSON))
	dec.UseNumber()
	var export map[string]any
	if err := dec.Decode(&export); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := jcs(&buf, export["payload"]); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

func jcs(buf *bytes.Buffer, v any) error {
	switch n := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(n))
	case json.Number:
		f, err := n.Float64()
		if err != nil {
			return err
		}
		buf.WriteString(es6Number(f))
	case string:
		jcsString(buf, n)
	case []any:
		buf.WriteByte('[')
		for i, x := range n {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := jcs(buf, x); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return utf16Less(keys[i], keys[j]) })
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			jcsString(buf, k)
			buf.WriteByte(':')
			if err := jcs(buf, n[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("unexpected %T", v)
	}
	return nil
}

func utf16Less(a, b string) bool {
	x, y := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return len(x) < len(y)
}

func jcsString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(buf, `\u%04x`, r)
			} else {
				buf.WriteRune(r)
			}
		}
	}
	buf.WriteByte('"')
}

// es6Number is ECMAScript's Number.prototype.toString for a double.
func es6Number(f float64) string {
	if f == 0 {
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddddde±x, shortest round-trip
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	exponent := strconv.Itoa(int(math.Abs(float64(n - 1))))
	if n-1 < 0 {
		exponent = "-" + exponent
	} else {
		exponent = "+" + exponent
	}
	if k == 1 {
		return sign + digits + "e" + exponent
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + exponent
}
