package prodlike

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// waitHTTP polls url until it answers 200, the process exits, or two
// minutes pass.
func waitHTTP(ctx context.Context, p *Proc, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	var last string
	for {
		if !p.Running() {
			return fmt.Errorf("prodlike: %s exited before it was ready (log: %s)", p.Name, p.Log)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("prodlike: %s not ready at %s: %s (log: %s)", p.Name, url, last, p.Log)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
