package api

import "go.temporal.io/api/workflowservice/v1"

// describeNamespace is the readiness probe's Temporal round trip: it proves
// the frontend answers and the namespace exists.
func describeNamespace(ns string) *workflowservice.DescribeNamespaceRequest {
	return &workflowservice.DescribeNamespaceRequest{Namespace: ns}
}
