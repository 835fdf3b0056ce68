package flylab

import "math"

// splitMix64 is the SplitMix64 generator (Steele, Lea & Flood 2014; the
// seeding generator of xoshiro): state += 0x9E3779B97F4A7C15, then two
// xor-shift-multiply rounds. It is tiny, passes BigCrush and, unlike a
// global source, is owned by exactly one simulated run.
type splitMix64 struct{ state uint64 }

func newSplitMix64(seed int64) *splitMix64 { return &splitMix64{state: uint64(seed)} }

func (r *splitMix64) next() uint64 {
	r.state += 0x9E3779B97F4A7C15
	z := r.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// uniform returns a float64 in [0, 1) from the top 53 bits.
func (r *splitMix64) uniform() float64 { return float64(r.next()>>11) * 0x1p-53 }

// openUniform returns a float64 in (0, 1), safe for logarithms.
func (r *splitMix64) openUniform() float64 { return (float64(r.next()>>11) + 0.5) * 0x1p-53 }

// unitNoise returns a zero-mean, unit-variance uniform innovation in
// [-√3, √3). The model's noise processes use it instead of Gaussian draws:
// it needs no transcendental functions, so it is cheap and bit-reproducible.
func (r *splitMix64) unitNoise() float64 { return float64((2*r.uniform() - 1) * math.Sqrt(3)) }

// The functions below replace math.Exp and math.Log inside the simulator.
// The standard ones use architecture-specific assembly on some platforms
// and may differ in the last bit between machines; these use only IEEE
// basic operations (each product rounded explicitly so no fused
// multiply-add can change a result), which are bit-identical everywhere.

// portableExp approximates e^x with relative error below 1e-15 for |x| < 700.
func portableExp(x float64) float64 {
	if x < -700 {
		return 0
	}
	if x > 700 {
		return math.Inf(1)
	}
	// Cody–Waite reduction: ln 2 split in a high part exact in k*hi and a low part.
	const ln2Hi, ln2Lo = 6.93147180369123816490e-01, 1.90821492927058770002e-10
	k := math.Round(float64(x / math.Ln2))
	r := float64(float64(x-float64(k*ln2Hi)) - float64(k*ln2Lo))
	// Taylor series of e^r for |r| <= ln2/2, Horner form.
	sum := 1.0
	for n := 17; n >= 1; n-- {
		sum = float64(1 + float64(r*sum)/float64(n))
	}
	return math.Ldexp(sum, int(k))
}

// portableLog approximates ln(x) for x > 0 with relative error below 1e-15.
func portableLog(x float64) float64 {
	frac, exp := math.Frexp(x) // x = frac * 2^exp, frac in [0.5, 1)
	if frac < math.Sqrt2/2 {
		frac *= 2
		exp--
	}
	// ln(frac) = 2 atanh(s), s = (frac-1)/(frac+1), |s| < 0.172.
	s := float64((frac - 1) / (frac + 1))
	s2 := float64(s * s)
	sum := 0.0
	for n := 41; n >= 1; n -= 2 {
		sum = float64(1/float64(n) + float64(s2*sum))
	}
	return float64(float64(2*s)*sum) + float64(float64(exp)*math.Ln2)
}

// logistic is 1/(1+e^-x).
func logistic(x float64) float64 { return 1 / (1 + portableExp(-x)) }

func mathRound(x float64) float64 { return math.Round(x) }
