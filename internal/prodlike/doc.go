// Package prodlike starts Gatehouse in its production topology on one
// machine: a real Temporal server (the binary built from the module in
// go.mod) on PostgreSQL, Gatehouse on PostgreSQL, N api and M worker
// processes, an S3-compatible blob store (gofakes3) that every replica
// shares, and a round-robin HTTP front with no session affinity, so every
// request of one client may land on a different api replica.
//
// cmd/prodlike (scripts/prodlike up|down|status) and the end-to-end tests
// in internal/e2e both start their stacks through Start.
package prodlike
