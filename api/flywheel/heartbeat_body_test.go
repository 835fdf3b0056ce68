package flywheel

import (
	"encoding/json"
	"testing"
	"time"
)

// TestHeartbeatBody_IsWhatEncodingJSONWrites compares the hand-written
// answer with encoding/json's for epoch times of several shapes.
func TestHeartbeatBody_IsWhatEncodingJSONWrites(t *testing.T) {
	for _, at := range []time.Time{
		time.Unix(1764720000, 0), time.Unix(1764720000, 123456000), time.Unix(1764720000, 100000),
		time.Unix(4102444800, 999999000), time.Unix(0, 1000),
	} {
		ts := epochSeconds(at)
		want, err := json.Marshal(map[string]any{"lease_expires_ts": ts})
		if err != nil {
			t.Fatal(err)
		}
		if got := heartbeatBody(ts); string(got) != string(want) {
			t.Errorf("heartbeatBody(%v) = %s, want %s", ts, got, want)
		}
	}
}
