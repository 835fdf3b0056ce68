package worker

import sdkworker "go.temporal.io/sdk/worker"

// registerFlywheel registers the flywheel workflows and activities.
func registerFlywheel(r sdkworker.Registry, deps Dependencies) {}
