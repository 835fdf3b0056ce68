package telemetry

import (
	"bytes"
	"strings"
)

// CompletionDocuments are the JSON documents of an OpenAI-compatible
// completion response body: the body itself when it is one JSON object,
// else the data of each server-sent event (a streamed completion's
// chunks, "[DONE]" included, which no JSON decoder accepts).
func CompletionDocuments(body []byte) [][]byte {
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '{' {
		return [][]byte{t}
	}
	var docs [][]byte
	for _, line := range strings.Split(string(body), "\n") {
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok {
			docs = append(docs, []byte(strings.TrimSpace(data)))
		}
	}
	return docs
}
