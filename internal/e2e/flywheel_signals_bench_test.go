package e2e

import (
	"bufio"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// signalCounts are the flywheel's workflow signals by kind (grant, output,
// heartbeat), every outcome counted: each is a call Temporal served.
type signalCounts map[string]float64

// signalsMetric is the counter the api replicas export them as.
const signalsMetric = "gatehouse_flywheel_workflow_signals_total{"

// scrapeSignals sums signalsMetric over the replicas' /metrics.
func scrapeSignals(b *testing.B, metricsURLs []string) signalCounts {
	out := signalCounts{}
	hc := &http.Client{Timeout: 10 * time.Second}
	for _, u := range metricsURLs {
		resp, err := hc.Get(u)
		if err != nil {
			b.Fatalf("scrape %s: %v", u, err)
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, signalsMetric) {
				continue
			}
			labels, value, ok := strings.Cut(line[len(signalsMetric):], "} ")
			v, err := strconv.ParseFloat(value, 64)
			if !ok || err != nil {
				b.Fatalf("scrape %s: unreadable %q", u, line)
			}
			out[labelValue(labels, "kind")] += v
		}
		_ = resp.Body.Close()
		if err := sc.Err(); err != nil {
			b.Fatalf("scrape %s: %v", u, err)
		}
	}
	return out
}

// labelValue is label name's value in a Prometheus label list.
func labelValue(labels, name string) string {
	for _, kv := range strings.Split(labels, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// perRollout is the signals between before and s, per rollout of n, as
// "kind x.xx" sorted by kind.
func (s signalCounts) perRollout(before signalCounts, n int) string {
	kinds := make([]string, 0, len(s))
	for k := range s {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %.2f", k, (s[k]-before[k])/float64(n)))
	}
	return strings.Join(parts, ", ")
}
