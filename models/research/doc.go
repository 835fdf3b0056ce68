// Package research holds the research domain's records that outlive a
// workflow: projects, experiments (a mirror of the workflow's status; the
// workflow is the authority), artifacts with the SHA-256 and size of their
// uploaded bytes, review requests and sessions with hashed capabilities,
// claims, and candidates with their append-only promotion history.
package research
