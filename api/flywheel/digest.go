package flywheel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// canonicalSHA256 digests a JSON value independent of key order and
// whitespace: the value is re-encoded with sorted keys and numbers kept as
// written. It is how a replayed turn is told apart from a different body
// under the same turn id.
func canonicalSHA256(raw json.RawMessage) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	canon := []byte(raw)
	if d.Decode(&v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}
