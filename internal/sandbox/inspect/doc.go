// Package inspect holds the plain types of a sandbox inspection: the
// request a reader sends to the host (or sandbox agent) holding a
// sandbox, the answer it gets and the wire names of its operations and
// errors. The research workflows carry these values and the sandbox
// agent answers them, so the package imports nothing but the standard
// library: both sides depend on it instead of on each other.
package inspect
