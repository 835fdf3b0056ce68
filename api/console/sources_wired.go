package console

import (
	"fmt"

	"github.com/gatehouse/gatehouse/api/flylab"
	"github.com/gatehouse/gatehouse/api/flywheel"
	"github.com/gatehouse/gatehouse/api/research"
	"github.com/gatehouse/gatehouse/api/rest"
)

// Services are the domain services the API already built, so the console
// acts through the same instances as the routes (one flywheel signal queue,
// one FlyLab coalescer); a nil one is built here.
type Services struct {
	// FlyLab approves and rejects designs.
	FlyLab *flylab.Service
	// Flywheel lists and cancels rollouts.
	Flywheel *flywheel.Handler
	// Research answers human reviews.
	Research *research.Service
}

// DomainSources builds the adapters over the domains' real code (the
// source_*.go files): FlyLab (#4) for approvals, sessions and evidence, the
// flywheel (#5) for rollouts, research (#6) for reviews and experiments.
// A domain without an adapter stays nil and its page reports it as not
// available in this deployment.
func DomainSources(d rest.Deps, shared Services) (Sources, error) {
	var s Sources
	var decider flylabDecider
	if d.Temporal != nil {
		svc := shared.FlyLab
		if svc == nil {
			var err error
			if svc, err = flylab.NewService(d); err != nil {
				return s, fmt.Errorf("console: flylab adapter: %w", err)
			}
		}
		decider = svc
	}
	fly := newFlyLabSource(d.DB, temporalOrNil(d), decider)
	s.Approvals, s.Sessions, s.Evidence = fly, fly, fly

	fw := shared.Flywheel
	if fw == nil {
		var err error
		if fw, err = flywheel.New(d.DB, d.Temporal, d.Log, flywheel.Options{PublicURL: d.Config.PublicURL, TaskQueue: d.Config.TaskQueue}); err != nil {
			return s, fmt.Errorf("console: flywheel adapter: %w", err)
		}
	}
	s.Rollouts = newFlywheelSource(d.DB, fw)

	rs := shared.Research
	if rs == nil {
		var err error
		if rs, err = research.NewService(d); err != nil {
			return s, fmt.Errorf("console: research adapter: %w", err)
		}
	}
	res := &researchSource{db: d.DB, reviewer: rs}
	s.Reviews, s.Experiments = res, res
	return s, nil
}

// temporalOrNil keeps a nil client nil inside the adapters' interfaces, so
// "no Temporal" is detectable (unit tests build the API without one).
func temporalOrNil(d rest.Deps) flylabTemporal {
	if d.Temporal == nil {
		return nil
	}
	return d.Temporal
}
