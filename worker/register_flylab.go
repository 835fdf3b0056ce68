package worker

import sdkworker "go.temporal.io/sdk/worker"

// registerFlyLab registers the flylab workflows and activities.
func registerFlyLab(r sdkworker.Registry, deps Dependencies) {}
