package config

// Role is a subcommand, or a family of subcommands, that reads
// configuration; each shows only the flags of the variables it reads.
type Role string

// The roles that read configuration.
const (
	// RoleDev is `gatehouse dev`: everything in one process.
	RoleDev Role = "dev"
	// RoleAPI is `gatehouse api`.
	RoleAPI Role = "api"
	// RoleWorker is `gatehouse worker`.
	RoleWorker Role = "worker"
	// RoleDatabase is what works on the database alone: `gatehouse migrate`
	// and `gatehouse keys`.
	RoleDatabase Role = "database"
	// RoleHealthcheck is `gatehouse healthcheck` (its default URL).
	RoleHealthcheck Role = "healthcheck"
)

// Role sets that read the same variables.
var (
	everyRole     = []Role{RoleDev, RoleAPI, RoleWorker, RoleDatabase}
	servingRoles  = []Role{RoleDev, RoleAPI, RoleWorker}
	apiRoles      = []Role{RoleDev, RoleAPI}
	workerRoles   = []Role{RoleDev, RoleWorker}
	externalRoles = []Role{RoleAPI, RoleWorker}
	databaseRoles = []Role{RoleDev, RoleAPI, RoleWorker, RoleDatabase}
)

// readers names, per variable of Vars, the roles whose code reads it (a
// test checks every variable has a row and every row a variable).
var readers = map[string][]Role{
	"GATEHOUSE_HTTP_ADDR":                       {RoleDev, RoleAPI, RoleHealthcheck},
	"GATEHOUSE_PUBLIC_URL":                      servingRoles,
	"GATEHOUSE_DATABASE_URL":                    databaseRoles,
	"GATEHOUSE_DATABASE_MAX_CONNS":              databaseRoles,
	"GATEHOUSE_DATABASE_MAX_IDLE_CONNS":         databaseRoles,
	"GATEHOUSE_DATABASE_CONN_MAX_LIFETIME":      databaseRoles,
	"GATEHOUSE_DATA_DIR":                        servingRoles, // dev's files; the default blob and sandbox directories
	"GATEHOUSE_TEMPORAL_ADDRESS":                externalRoles,
	"GATEHOUSE_TEMPORAL_NAMESPACE":              servingRoles,
	"GATEHOUSE_TEMPORAL_API_KEY":                externalRoles,
	"GATEHOUSE_TEMPORAL_TLS_CERT":               externalRoles,
	"GATEHOUSE_TEMPORAL_TLS_KEY":                externalRoles,
	"GATEHOUSE_TEMPORAL_UI_URL":                 apiRoles,
	"GATEHOUSE_TASK_QUEUE":                      servingRoles,
	"GATEHOUSE_WORKER_HOST_ID":                  workerRoles,
	"GATEHOUSE_WORKER_HEALTH_ADDR":              {RoleWorker},
	"GATEHOUSE_METRICS_ADDR":                    {RoleAPI},
	"GATEHOUSE_DEV_TEMPORAL_ADDR":               {RoleDev},
	"GATEHOUSE_DEV_UI_ADDR":                     {RoleDev},
	"GATEHOUSE_DEV_API_KEY":                     {RoleDev},
	"GATEHOUSE_DEV_OPERATOR_TOKEN":              {RoleDev},
	"GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN":        {RoleAPI},
	"GATEHOUSE_FEATURE_STORAGE":                 servingRoles,
	"GATEHOUSE_FEATURE_SANDBOXES":               servingRoles,
	"GATEHOUSE_FEATURE_TRACKING":                servingRoles,
	"GATEHOUSE_MCP_UNDERSCORE_ALIASES":          servingRoles,
	"GATEHOUSE_MCP_ALLOWED_HOSTS":               apiRoles,
	"GATEHOUSE_BLOB_DIR":                        servingRoles,
	"GATEHOUSE_CENTRAL_GIT_DIR":                 servingRoles,
	"GATEHOUSE_MAX_BODY_BYTES":                  apiRoles,
	"GATEHOUSE_LOG_LEVEL":                       everyRole,
	"GATEHOUSE_SHUTDOWN_TIMEOUT":                servingRoles,
	"GATEHOUSE_WORKER_STOP_TIMEOUT":             workerRoles,
	"OTEL_EXPORTER_OTLP_ENDPOINT":               everyRole,
	"GATEHOUSE_LLM_UPSTREAM_URL":                apiRoles,
	"GATEHOUSE_LLM_UPSTREAM_API_KEY":            apiRoles,
	"GATEHOUSE_LLM_UPSTREAM_TIMEOUT":            apiRoles,
	"GATEHOUSE_LLM_UPSTREAM_HEADER_TIMEOUT":     apiRoles,
	"GATEHOUSE_FLYWHEEL_LEASE_MIN":              apiRoles,
	"GATEHOUSE_FLYWHEEL_LEASE_MAX":              apiRoles,
	"GATEHOUSE_BLOB_S3_ENDPOINT":                servingRoles,
	"GATEHOUSE_BLOB_S3_BUCKET":                  servingRoles,
	"GATEHOUSE_BLOB_S3_REGION":                  servingRoles,
	"GATEHOUSE_BLOB_S3_ACCESS_KEY_ID":           servingRoles,
	"GATEHOUSE_BLOB_S3_SECRET_ACCESS_KEY":       servingRoles,
	"GATEHOUSE_BLOB_S3_PATH_STYLE":              servingRoles,
	"GATEHOUSE_STORAGE_RETENTION":               apiRoles,
	"GATEHOUSE_STORAGE_SWEEP_INTERVAL":          workerRoles,
	"GATEHOUSE_MLFLOW_TRACKING_URI":             apiRoles,
	"GATEHOUSE_SANDBOX_PROVIDERS":               servingRoles,
	"GATEHOUSE_SANDBOX_RUN_AS":                  servingRoles,
	"GATEHOUSE_SANDBOX_UNISOLATED_I_UNDERSTAND": servingRoles,
	"GATEHOUSE_SANDBOX_KUBE_NAMESPACE":          servingRoles,
	"GATEHOUSE_SANDBOX_KUBE_IMAGE":              servingRoles,
	"GATEHOUSE_SANDBOX_KUBE_AGENT_IMAGE":        servingRoles,
	"GATEHOUSE_SANDBOX_KUBECONFIG":              servingRoles,
	"GATEHOUSE_SANDBOX_MAX_LIVE_PER_PROJECT":    apiRoles,
	"GATEHOUSE_SANDBOX_MAX_GPUS_PER_PROJECT":    apiRoles,
	"GATEHOUSE_SANDBOX_MAX_LIFETIME":            apiRoles,
	"GATEHOUSE_SANDBOX_REAP_INTERVAL":           workerRoles,
}

// VarsFor returns the variables role reads, in the order of Vars.
func VarsFor(role Role) []Var {
	var out []Var
	for _, v := range Vars {
		for _, r := range readers[v.Name] {
			if r == role {
				out = append(out, v)
				break
			}
		}
	}
	return out
}
