// Package deploycheck holds the tests that keep Gatehouse's deployment files
// honest without a cluster or a Docker engine: the Helm chart under
// helm/gatehouse is linted, rendered and decoded strictly into Kubernetes API
// types, and docker-compose.yml is loaded with the compose-spec loader. Both
// are checked against the environment variables the code reads
// (config.Names) and the Temporal versions Gatehouse embeds (go.mod).
//
// The Helm tests need a helm binary: set HELM to its path (scripts/install-helm
// builds one from the Go module proxy and prints the path) or put helm on
// PATH. Without one they skip, except when CI=true, where they fail.
package deploycheck
