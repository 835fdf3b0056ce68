package research

import (
	"bytes"
	"encoding/json"
)

// asJSONObject is v's JSON object decoded as a map (numbers kept as
// json.Number, so encoding it again gives v's bytes). It serves the few
// handlers whose answer existing tests read as a map[string]any rather
// than through JSON (sandbox.request, the experiment scope of
// workflow.status_and_next); once those tests decode the JSON, the
// handlers can answer their typed body directly.
func asJSONObject(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	return m, dec.Decode(&m)
}
