package api

import (
	"github.com/gatehouse/gatehouse/api/console"
	"github.com/gatehouse/gatehouse/api/rest"
)

// mountConsole registers the operator console. Its pages read each domain
// through the adapters of console.DomainSources; a domain this deployment
// does not have shows as not available.
func mountConsole(r *rest.Router, d Deps, svc *services) error {
	sources, err := console.DomainSources(d, console.Services{FlyLab: svc.flylab, Flywheel: svc.flywheel, Research: svc.research})
	if err != nil {
		return err
	}
	c, err := console.New(console.Options{
		DB:            d.DB,
		Sources:       sources,
		PublicURL:     d.Config.PublicURL,
		TemporalUIURL: d.Config.TemporalUIURL,
		Namespace:     d.Config.TemporalNamespace,
		Log:           d.Log,
	})
	if err != nil {
		return err
	}
	c.Mount(r)
	return nil
}
