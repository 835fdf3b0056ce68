package flylab

import (
	"encoding/json"
	"math"
	"testing"
)

func TestCanonicalJSON_FollowsRFC8785(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string
	}{
		{"integers and fractions", []float64{0, 1, -1, 0.1, 1.5, 100}, `[0,1,-1,0.1,1.5,100]`},
		{"negative zero", math.Copysign(0, -1), `0`},
		{"large exponent", 1e21, `1e+21`},
		{"just below exponent form", 1e20, `100000000000000000000`},
		{"small exponent", 1e-7, `1e-7`},
		{"small fixed", 0.000001, `0.000001`},
		{"shortest round trip", 1.0 / 3, `0.3333333333333333`},
		{"keys sorted", map[string]int{"b": 1, "a": 2, "aa": 3}, `{"a":2,"aa":3,"b":1}`},
		{"keys by UTF-16 units", map[string]int{"\U0001F600": 1, "\uFFFD": 2}, `{"😀":1,"�":2}`},
		{"escapes", "q\"b\\n\n\t\u0001é<", `"q\"b\\n\n\t\u0001é<"`},
		{"struct tags and omitempty", struct {
			B    int    `json:"b"`
			A    string `json:"a,omitempty"`
			Skip int    `json:"-"`
			Z    []int  `json:"z"`
		}{B: 1, Skip: 9}, `{"b":1,"z":null}`},
		{"json.Number", json.Number("2.50"), `2.5`},
		{"nested any", map[string]any{"x": []any{true, nil, "s"}}, `{"x":[true,null,"s"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CanonicalJSON(tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestCanonicalJSON_RejectsValuesWithoutJSONForm(t *testing.T) {
	for name, v := range map[string]any{
		"NaN": math.NaN(), "infinity": math.Inf(1), "invalid UTF-8": "\xff", "huge int": int64(1) << 60,
		"channel": make(chan int), "int keys": map[int]int{1: 1},
	} {
		if _, err := CanonicalJSON(v); errorCode(err) != CodeInvalidInput {
			t.Errorf("%s: got %v, want INVALID_INPUT", name, err)
		}
	}
}

func TestContentHash_HasPrefixAndChangesWithContent(t *testing.T) {
	a, _ := ContentHash(map[string]int{"a": 1})
	b, _ := ContentHash(map[string]int{"a": 2})
	if len(a) != 71 || a[:7] != "sha256:" || a == b {
		t.Fatalf("bad hashes %s %s", a, b)
	}
	// Known vector: SHA-256 of the canonical text {"a":1}.
	if want := "sha256:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"; a != want {
		t.Errorf("got %s, want %s", a, want)
	}
}

func TestPortableExpAndLog_MatchMathWithinRounding(t *testing.T) {
	for _, x := range []float64{-50, -7.5, -1, -1e-9, 0, 0.3, 1, 2.5, 10, 300} {
		if got, want := portableExp(x), math.Exp(x); math.Abs(got-want) > 1e-14*want {
			t.Errorf("exp(%g) = %g, want %g", x, got, want)
		}
	}
	for _, x := range []float64{1e-300, 1e-9, 0.1, 0.5, 0.7071, 1, 1.5, 2, 1e9} {
		if got, want := portableLog(x), math.Log(x); math.Abs(got-want) > 1e-14*math.Max(1, math.Abs(want)) {
			t.Errorf("log(%g) = %g, want %g", x, got, want)
		}
	}
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
