// Package agent is the sandbox agent: what answers "what happened in this
// sandbox" (its runs, files and outputs) next to the sandbox itself.
//
// Answer is the one reading core. The worker's inspection activity uses it
// for local sandboxes on its host; inside a kubernetes sandbox Pod,
// `gatehouse sandbox-agent serve` runs the same SSH server as the local
// provider (so every command is recorded as a run) and serves Answer over
// HTTP behind a per-sandbox bearer token (Handler); Client is the API's
// side of that HTTP exchange.
package agent

// Environment of `gatehouse sandbox-agent serve`, set on the sandbox Pod.
const (
	EnvUID       = "GATEHOUSE_SANDBOX_UID"
	EnvPublicKey = "GATEHOUSE_SANDBOX_PUBLIC_KEY"
	// EnvToken is the bearer token itself (Pods made before
	// EnvTokenSHA256; kept so their agents still start).
	EnvToken = "GATEHOUSE_SANDBOX_INSPECT_TOKEN"
	// EnvTokenSHA256 is the hex SHA-256 of the bearer token: all a Pod
	// spec carries, so reading the spec does not give the token.
	EnvTokenSHA256 = "GATEHOUSE_SANDBOX_INSPECT_TOKEN_SHA256"
	EnvRoot        = "GATEHOUSE_SANDBOX_ROOT"
	EnvSSHPort     = "GATEHOUSE_SANDBOX_SSH_PORT"
	EnvPort        = "GATEHOUSE_SANDBOX_INSPECT_PORT"
	EnvTimeLimit   = "GATEHOUSE_SANDBOX_TIME_LIMIT_SECONDS"
	EnvCPU         = "GATEHOUSE_SANDBOX_CPU"
	EnvMemoryMB    = "GATEHOUSE_SANDBOX_MEMORY_MB"
)
