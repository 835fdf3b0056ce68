package research

// ptr is a pointer to a copy of v: an optional response field that is set.
func ptr[T any](v T) *T { return &v }
