package flylab

import "encoding/json"

func toJSON(v any) (string, error) {
	raw, err := json.Marshal(v)
	return string(raw), err
}
