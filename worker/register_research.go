package worker

import sdkworker "go.temporal.io/sdk/worker"

// registerResearch registers the research workflows and activities.
func registerResearch(r sdkworker.Registry, deps Dependencies) {}
