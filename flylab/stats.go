package flylab

import "math"

// Proportion is k of n with a 95% Wilson score interval.
type Proportion struct {
	K     int     `json:"k"`
	N     int     `json:"n"`
	P     float64 `json:"p"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

const wilsonZ = 1.959963984540054

// wilson returns the Wilson score interval; n = 0 gives [0, 1].
func wilson(k, n int) Proportion {
	if n == 0 {
		return Proportion{Lower: 0, Upper: 1}
	}
	p := float64(k) / float64(n)
	z2 := wilsonZ * wilsonZ
	denom := 1 + z2/float64(n)
	centre := (p + z2/(2*float64(n))) / denom
	half := wilsonZ * math.Sqrt(p*(1-p)/float64(n)+z2/(4*float64(n)*float64(n))) / denom
	return Proportion{K: k, N: n, P: round6(p), Lower: round6(math.Max(0, centre-half)), Upper: round6(math.Min(1, centre+half))}
}

// meanSD returns the mean and sample standard deviation (0 for n < 2).
func meanSD(values []float64) (mean, sd float64) {
	if len(values) == 0 {
		return 0, 0
	}
	for _, v := range values {
		mean += v
	}
	mean /= float64(len(values))
	if len(values) < 2 {
		return mean, 0
	}
	for _, v := range values {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(values)-1))
}

func round6(v float64) float64 { return roundTo(v, 1e6) }
