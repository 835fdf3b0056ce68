package research

import "github.com/gatehouse/gatehouse/models/platform"

// allowedActions is the truthful allowed_actions of a status envelope:
// the tools this deployment serves that this caller may call (an agent
// key may not call hidden tools; a family a feature turned off is absent),
// followed by the transitions the gate allows, which the contract counts
// among allowed_actions ("transition: one of allowed_actions").
func (s *Service) allowedActions(p platform.Principal, tools, transitions []string) []string {
	out := make([]string, 0, len(tools)+len(transitions))
	for _, name := range tools {
		t, ok := s.Cat.Lookup(name)
		if !ok || (t.Hidden && p.Role != platform.RoleOperator) {
			continue
		}
		out = append(out, name)
	}
	return append(out, transitions...)
}
