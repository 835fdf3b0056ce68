package research

// Small builders for the tools' JSON schemas (draft 2020-12).

type props map[string]any

func object(required []string, p props) map[string]any {
	if required == nil {
		required = []string{}
	}
	return map[string]any{"type": "object", "properties": map[string]any(p), "required": required, "additionalProperties": false}
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func strLen(desc string, min, max int) map[string]any {
	return map[string]any{"type": "string", "description": desc, "minLength": min, "maxLength": max}
}

func enum(desc string, values ...string) map[string]any {
	return map[string]any{"type": "string", "description": desc, "enum": values}
}

func boolean(desc string) map[string]any {
	return map[string]any{"type": "boolean", "description": desc}
}

func integer(desc string, min, max int) map[string]any {
	return map[string]any{"type": "integer", "description": desc, "minimum": min, "maximum": max}
}

func number(desc string) map[string]any { return map[string]any{"type": "number", "description": desc} }

func dict(desc string) map[string]any { return map[string]any{"type": "object", "description": desc} }

func strList(desc string, max int) map[string]any {
	return map[string]any{"type": "array", "description": desc, "maxItems": max, "items": map[string]any{"type": "string", "minLength": 1, "maxLength": 200}}
}

func anyList(desc string, max int) map[string]any {
	return map[string]any{"type": "array", "description": desc, "maxItems": max}
}

var (
	projectID    = strLen("project id", 1, 64)
	experimentID = strLen("experiment id", 1, 64)
	sha256Hex    = map[string]any{"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "lowercase hex SHA-256"}
)
