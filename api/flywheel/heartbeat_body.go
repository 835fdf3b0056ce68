package flywheel

import "strconv"

// heartbeatBody is the heartbeat's answer, {"lease_expires_ts": ts},
// written byte for byte as encoding/json writes it (a float64 in 'f'
// format with the fewest digits that round-trip, which covers every
// epoch time), without the reflective encoding of a map on the hottest
// route.
func heartbeatBody(ts float64) []byte {
	b := make([]byte, 0, 40)
	b = append(b, `{"lease_expires_ts":`...)
	b = strconv.AppendFloat(b, ts, 'f', -1, 64)
	return append(b, '}')
}
