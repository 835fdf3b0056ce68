package flywheel

import (
	"encoding/json"
	"errors"
	"math/big"
)

// errIntRange is a schema integer outside what storage holds.
var errIntRange = errors.New("integer does not fit in 64 bits")

// schemaInt converts a number the schema accepted as an integer. JSON
// Schema counts any number with a zero fractional part as an integer, so
// 1e2, 3.0 and 30e-1 are integers as much as 100 and 3 are; only a value
// beyond 64 bits is refused.
func schemaInt(n json.Number) (int64, error) {
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	// big.Float keeps a binary exponent, so even 1e999999999 parses in
	// constant space; 128 bits hold every int64 exactly.
	f, _, err := big.ParseFloat(n.String(), 10, 128, big.ToNearestEven)
	if err != nil || !f.IsInt() {
		return 0, errIntRange
	}
	i, acc := f.Int64()
	if acc != big.Exact {
		return 0, errIntRange
	}
	return i, nil
}
