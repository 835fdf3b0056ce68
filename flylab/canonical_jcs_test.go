package flylab

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// rfc8785Numbers are the IEEE 754 test values of RFC 8785 appendix B with
// the serialization the RFC requires.
var rfc8785Numbers = []struct{ bits, want string }{
	{"0000000000000000", "0"},
	{"8000000000000000", "0"},
	{"0000000000000001", "5e-324"},
	{"8000000000000001", "-5e-324"},
	{"7fefffffffffffff", "1.7976931348623157e+308"},
	{"ffefffffffffffff", "-1.7976931348623157e+308"},
	{"4340000000000000", "9007199254740992"},
	{"c340000000000000", "-9007199254740992"},
	{"4430000000000000", "295147905179352830000"},
	{"44b52d02c7e14af5", "9.999999999999997e+22"},
	{"44b52d02c7e14af6", "1e+23"},
	{"44b52d02c7e14af7", "1.0000000000000001e+23"},
	{"444b1ae4d6e2ef4e", "999999999999999700000"},
	{"444b1ae4d6e2ef4f", "999999999999999900000"},
	{"444b1ae4d6e2ef50", "1e+21"},
	{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
	{"3eb0c6f7a0b5ed8d", "0.000001"},
	{"41b3de4355555553", "333333333.3333332"},
	{"41b3de4355555554", "333333333.33333325"},
	{"41b3de4355555555", "333333333.3333333"},
	{"41b3de4355555556", "333333333.3333334"},
	{"41b3de4355555557", "333333333.33333343"},
	{"becbf647612f3696", "-0.0000033333333333333333"},
	{"43143ff3c1cb0959", "1424953923781206.2"},
}

func bitsFloat(t *testing.T, hex string) float64 {
	t.Helper()
	u, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return math.Float64frombits(u)
}

// Both CanonicalJSON and an independent RFC 8785 implementation
// (github.com/gowebpki/jcs) give the RFC's answer for every number vector.
func TestCanonicalJSON_RFC8785NumberVectorsAgreeWithAnIndependentJCS(t *testing.T) {
	t.Parallel()
	for _, v := range rfc8785Numbers {
		f := bitsFloat(t, v.bits)
		ours, err := CanonicalJSON(f)
		if err != nil || string(ours) != v.want {
			t.Errorf("%s: CanonicalJSON %q (%v), RFC 8785 says %q", v.bits, ours, err, v.want)
		}
		theirs, err := jcs.NumberToJSON(f)
		if err != nil || theirs != v.want {
			t.Errorf("%s: gowebpki/jcs %q (%v), RFC 8785 says %q", v.bits, theirs, err, v.want)
		}
	}
	for _, bad := range []string{"7fffffffffffffff", "7ff0000000000000", "fff0000000000000"} {
		if _, err := CanonicalJSON(bitsFloat(t, bad)); err == nil {
			t.Errorf("%s (NaN or infinity) must be refused", bad)
		}
	}
}

// keyAlphabet mixes ASCII, Latin, BMP and astral characters, whose UTF-16
// order differs from their UTF-8 byte order, plus characters JSON escapes.
var keyAlphabet = []rune{'a', 'b', 'Z', '1', '_', 'é', 'ö', '€', '\u20ac', '\U0001F600', '\U0001D11E', 'ﬀ', '\n', '"', '\\', '\u0001', '<', '\u2028'}

func randomString(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(6); n >= 0; n-- {
		b.WriteRune(keyAlphabet[r.IntN(len(keyAlphabet))])
	}
	return b.String()
}

func randomNumber(r *rand.Rand) float64 {
	switch r.IntN(4) {
	case 0:
		return float64(r.IntN(2000) - 1000)
	case 1:
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
	default:
		for {
			if f := math.Float64frombits(r.Uint64()); !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f
			}
		}
	}
}

func randomValue(r *rand.Rand, depth int) any {
	kind := r.IntN(7)
	if depth > 3 {
		kind = r.IntN(4)
	}
	switch kind {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return randomNumber(r)
	case 3:
		return randomString(r)
	case 4, 5:
		m := map[string]any{}
		for n := r.IntN(5); n > 0; n-- {
			m[randomString(r)] = randomValue(r, depth+1)
		}
		return m
	default:
		var a []any
		for n := r.IntN(4); n > 0; n-- {
			a = append(a, randomValue(r, depth+1))
		}
		return a
	}
}

// Random documents canonicalize identically in both implementations.
func TestCanonicalJSON_RandomDocumentsAgreeWithAnIndependentJCS(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(8785, 1))
	for i := 0; i < 2000; i++ {
		doc := map[string]any{"v": randomValue(r, 0), randomString(r): randomValue(r, 0)}
		raw, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := jcs.Transform(raw)
		if err != nil {
			t.Fatalf("gowebpki/jcs refused %s: %v", raw, err)
		}
		ours, err := CanonicalJSON(doc)
		if err != nil {
			t.Fatalf("CanonicalJSON refused %s: %v", raw, err)
		}
		if string(ours) != string(theirs) {
			t.Fatalf("document %d differs:\n input  %s\n ours   %s\n theirs %s", i, raw, ours, theirs)
		}
	}
}
