package api

import (
	"github.com/gatehouse/gatehouse/api/flywheel"
	"github.com/gatehouse/gatehouse/api/rest"
)

// mountFlywheel registers the flywheel wire contract, operator rollout endpoints and the LLM gateway.
func mountFlywheel(r *rest.Router, d Deps) error {
	h, err := flywheel.New(d.DB, d.Temporal, d.Log, flywheel.Options{
		PublicURL: d.Config.PublicURL, TaskQueue: d.Config.TaskQueue,
		LeaseMin: d.Config.FlywheelLeaseMin, LeaseMax: d.Config.FlywheelLeaseMax,
		Upstream: d.Config.LLMUpstreamURL, UpstreamKey: d.Config.LLMUpstreamAPIKey,
	})
	if err != nil {
		return err
	}
	h.Mount(r, d)
	return nil
}
