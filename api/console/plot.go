package console

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// The evidence plots are SVG computed here and emitted by the template, so
// every coordinate and label passes through html/template's escaping.

// palette is the Okabe–Ito colour-blind-safe palette; conditions take
// colours in sorted order, the same in every chart of a bundle.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"}

// conditionColors maps each condition to its colour.
func conditionColors(names []string) map[string]string {
	uniq := map[string]bool{}
	for _, n := range names {
		uniq[n] = true
	}
	sorted := make([]string, 0, len(uniq))
	for n := range uniq {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	out := make(map[string]string, len(sorted))
	for i, n := range sorted {
		out[n] = palette[i%len(palette)]
	}
	return out
}

// trajectoryPlot is an x–y plot with one path per run.
type trajectoryPlot struct {
	Width, Height            int
	Left, Top, Right, Bottom float64
	MidX, MidY               float64
	Paths                    []plotPath
	Legend                   []legendEntry
	XTicks, YTicks           []tick
}

type plotPath struct {
	RunID, Condition, Color, D string
	Seed                       int64
}

type legendEntry struct {
	Condition, Color string
	Y                float64
}

type tick struct {
	Pos   float64
	Label string
}

// plotTrajectories lays out the runs' (x, y) paths in millimetres, one
// path per run, coloured by condition.
func plotTrajectories(runs []Run) trajectoryPlot {
	conds := make([]string, 0, len(runs))
	for _, r := range runs {
		conds = append(conds, r.Condition)
	}
	return plotTrajectoriesWith(runs, conditionColors(conds))
}

// plotTrajectoriesWith is plotTrajectories with colours shared with other
// charts of the same bundle.
func plotTrajectoriesWith(runs []Run, colors map[string]string) trajectoryPlot {
	p := trajectoryPlot{Width: 640, Height: 400, Left: 64, Top: 16, Right: 480, Bottom: 344}
	p.MidX, p.MidY = (p.Left+p.Right)/2, (p.Top+p.Bottom)/2
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	inLegend := map[string]bool{}
	for _, r := range runs {
		inLegend[r.Condition] = true
		for _, pt := range r.Points {
			minX, maxX = math.Min(minX, pt.X), math.Max(maxX, pt.X)
			minY, maxY = math.Min(minY, pt.Y), math.Max(maxY, pt.Y)
		}
	}
	if math.IsInf(minX, 1) {
		minX, maxX, minY, maxY = 0, 1, 0, 1
	}
	xs, ys := niceAxis(minX, maxX), niceAxis(minY, maxY)
	sx := func(v float64) float64 { return p.Left + (v-xs.lo)/(xs.hi-xs.lo)*(p.Right-p.Left) }
	sy := func(v float64) float64 { return p.Bottom - (v-ys.lo)/(ys.hi-ys.lo)*(p.Bottom-p.Top) }
	for _, r := range runs {
		var d strings.Builder
		for i, pt := range thin(r.Points, maxPathPoints) {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f ", cmd, sx(pt.X), sy(pt.Y))
		}
		p.Paths = append(p.Paths, plotPath{RunID: r.ID, Condition: r.Condition, Seed: r.Seed,
			Color: colorOr(colors, r.Condition), D: strings.TrimSpace(d.String())})
	}
	for _, n := range sortedKeys(colors) {
		if !inLegend[n] {
			continue
		}
		p.Legend = append(p.Legend, legendEntry{Condition: n, Color: colors[n], Y: p.Top + 8 + float64(len(p.Legend))*20})
	}
	for _, v := range xs.ticks {
		p.XTicks = append(p.XTicks, tick{Pos: sx(v), Label: trimNum(v)})
	}
	for _, v := range ys.ticks {
		p.YTicks = append(p.YTicks, tick{Pos: sy(v), Label: trimNum(v)})
	}
	return p
}

// barChart is one metric's values per condition as horizontal bars.
type barChart struct {
	MetricID, Unit string
	Width, Height  int
	Zero           float64
	Bars           []bar
}

type bar struct {
	Condition, Color, Label string
	X, Y, W                 float64
}

// plotMetric draws a metric's per-condition values around a zero line.
func plotMetric(m Metric, colors map[string]string) barChart {
	const left, right, rowH = 150.0, 300.0, 22.0
	c := barChart{MetricID: m.ID, Unit: m.Unit, Width: 380, Height: int(rowH*float64(len(m.Values)) + 8)}
	lo, hi := 0.0, 0.0
	for _, v := range m.Values {
		lo, hi = math.Min(lo, v.Value), math.Max(hi, v.Value)
	}
	if hi == lo {
		hi = lo + 1
	}
	scale := func(v float64) float64 { return left + (v-lo)/(hi-lo)*(right-left) }
	c.Zero = scale(0)
	for i, v := range m.Values {
		x0, x1 := c.Zero, scale(v.Value)
		if x1 < x0 {
			x0, x1 = x1, x0
		}
		c.Bars = append(c.Bars, bar{Condition: v.Condition, Color: colorOr(colors, v.Condition),
			Label: trimNum(v.Value), X: x0, W: math.Max(x1-x0, 1), Y: 4 + float64(i)*rowH})
	}
	return c
}

func colorOr(colors map[string]string, cond string) string {
	if c, ok := colors[cond]; ok {
		return c
	}
	return "#777777"
}

// maxPathPoints bounds the points drawn per run: a long, finely sampled
// trial would otherwise make a page of megabytes that looks the same.
const maxPathPoints = 600

// thin keeps at most max points, evenly spaced, always with the last one.
func thin(pts []Point, max int) []Point {
	if len(pts) <= max {
		return pts
	}
	out := make([]Point, 0, max)
	step := float64(len(pts)-1) / float64(max-1)
	for i := 0; i < max; i++ {
		out = append(out, pts[int(math.Round(float64(i)*step))])
	}
	return out
}

// axis is a rounded range with its tick values.
type axis struct {
	lo, hi float64
	ticks  []float64
}

// niceAxis widens [lo, hi] to round numbers with about five ticks.
func niceAxis(lo, hi float64) axis {
	if hi-lo < 1e-9 {
		lo, hi = lo-1, hi+1
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	a := axis{lo: math.Floor(lo/step) * step, hi: math.Ceil(hi/step) * step}
	for v := a.lo; v <= a.hi+step/2; v += step {
		a.ticks = append(a.ticks, math.Round(v/step)*step)
	}
	return a
}

func trimNum(v float64) string {
	if v == 0 {
		return "0"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.4g", v), ".0")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
