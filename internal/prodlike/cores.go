package prodlike

import "strconv"

// PodGOMAXPROCS is the GOMAXPROCS every Gatehouse process of the stack
// (api, worker, migrate) runs with: what the chart gives its pods from their default CPU
// requests (helm/gatehouse templates/_helpers.tpl, gatehouse.goMaxProcs:
// the request's whole cores, rounded up). Without it each process would
// run Go on every core of the machine, as no pod of the chart does.
// internal/deploycheck checks the chart still renders this value.
const PodGOMAXPROCS = 1

// podCoresEnv is PodGOMAXPROCS as a role's environment entry (Options.Env
// may override it).
func podCoresEnv() string { return "GOMAXPROCS=" + strconv.Itoa(PodGOMAXPROCS) }
