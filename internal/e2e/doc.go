// Package e2e holds the end-to-end tests that run against a real embedded
// Temporal server and the real HTTP API (`gatehouse dev` in-process). They
// live in one package so the Temporal server is linked into one test binary.
// Each domain has its own file (ping_test.go, flylab_test.go, …) and shares
// the harness in stack_test.go.
package e2e
