package api

import (
	"github.com/gatehouse/gatehouse/api/flylab"
	"github.com/gatehouse/gatehouse/api/flywheel"
	"github.com/gatehouse/gatehouse/api/research"
)

// services are the domain services of one API process, built once and
// shared by the routes and the console: each holds process-wide state
// (the flywheel's heartbeat signal queue, FlyLab's in-flight coalescer,
// compiled contracts) that two copies would split.
type services struct {
	flylab   *flylab.Service
	flywheel *flywheel.Handler
	research *research.Service
}

// newServices builds every domain service from the API's dependencies.
func newServices(d Deps) (*services, error) {
	fly, err := flylab.NewService(d)
	if err != nil {
		return nil, err
	}
	fw, err := flywheel.New(d.DB, d.Temporal, d.Log, flywheel.Options{
		PublicURL: d.Config.PublicURL, TaskQueue: d.Config.TaskQueue,
		LeaseMin: d.Config.FlywheelLeaseMin, LeaseMax: d.Config.FlywheelLeaseMax,
		Upstream: d.Config.LLMUpstreamURL, UpstreamKey: d.Config.LLMUpstreamAPIKey,
		UpstreamTimeout: d.Config.LLMUpstreamTimeout, UpstreamHeaderTimeout: d.Config.LLMUpstreamHeaderTimeout,
		HeartbeatDB: d.HeartbeatDB,
	})
	if err != nil {
		return nil, err
	}
	rs, err := research.NewService(d)
	if err != nil {
		return nil, err
	}
	return &services{flylab: fly, flywheel: fw, research: rs}, nil
}
