// Package researchclient holds the client side of the research
// workflows: calls the API and the activities make into them through a
// Temporal client (never from inside a workflow, whose package imports
// only the SDK's workflow side and plain types).
package researchclient
