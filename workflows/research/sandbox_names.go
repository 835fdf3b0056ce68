package research

import "time"

// Names of the sandbox workflow and its handlers.
const (
	// SandboxWorkflowName is the registered workflow type.
	SandboxWorkflowName = "research.Sandbox"
	// SandboxIDPrefix starts every sandbox workflow ID.
	SandboxIDPrefix = "sandbox/"
	// SandboxExtendSignal moves the time limit (payload SandboxExtend);
	// the api sends SandboxExtendUpdate instead, the signal stays for
	// runs and clients that still send it.
	SandboxExtendSignal = "sandbox-extend"
	// SandboxReleaseSignal tears the sandbox down (payload SandboxRelease).
	SandboxReleaseSignal = "sandbox-release"
	// SandboxReprovisionSignal asks a running sandbox to make sure its
	// machine is up (a restarted worker lost its local SSH servers); the
	// endpoint may change (payload SandboxReprovision).
	SandboxReprovisionSignal = "sandbox-reprovision"
	// SandboxStateQuery returns the SandboxState.
	SandboxStateQuery = "sandbox-state"
	// ProvisionSandboxActivity creates the machine; idempotent per uid.
	ProvisionSandboxActivity = "research.ProvisionSandbox"
	// DestroySandboxActivity destroys the machine; idempotent per uid.
	DestroySandboxActivity = "research.DestroySandbox"
	// RecordSandboxActivity mirrors status, endpoint and expiry into the row.
	RecordSandboxActivity = "research.RecordSandbox"
	// KindSandbox is the GatehouseKind search attribute value.
	KindSandbox = "research-sandbox"

	// SandboxDefaultExtend is what sandbox.extend adds without seconds.
	SandboxDefaultExtend = 1800 * time.Second
	// SandboxMaxExtend is the most one sandbox.extend adds.
	SandboxMaxExtend = 30 * time.Minute
	// SandboxDefaultTimeLimit is a sandbox's time limit when none is asked.
	SandboxDefaultTimeLimit = time.Hour

	// SandboxHostQueueChange is the workflow.GetVersion change ID under
	// which a local sandbox's later activities run on its host task queue.
	SandboxHostQueueChange = "sandbox-host-queue"
	// SandboxContinueAsNewChange is the workflow.GetVersion change ID under
	// which a sandbox continues as new after SandboxContinueAfter waits.
	SandboxContinueAsNewChange = "sandbox-continue-as-new"
	// SandboxContinueAfter is how many signals one run handles before it
	// continues as new (each costs about ten history events, so a run
	// stays far under Temporal's history limits however often it is
	// extended).
	SandboxContinueAfter = 500
	// SandboxHostQueueSuffix joins the shared task queue and a host id
	// into a host task queue: <task queue>-host-<host id>.
	SandboxHostQueueSuffix = "-host-"
	// SandboxHostPickup bounds how long a re-provision or a quick destroy
	// waits for the holding host to poll (ScheduleToStartTimeout).
	SandboxHostPickup = time.Minute
	// SandboxHostGiveUp bounds how long a cleanup_pending destroy waits
	// for the holding host to come back before the workflow ends with the
	// sandbox left cleanup_pending on that host.
	SandboxHostGiveUp = 24 * time.Hour
)

// Sandbox statuses, the same words as the tool surface.
const (
	SandboxProvisioning   = "provisioning"
	SandboxRunning        = "running"
	SandboxTerminated     = "terminated"
	SandboxFailed         = "failed"
	SandboxCleanupPending = "cleanup_pending"
)

// Why a sandbox ended.
const (
	SandboxEndExpired  = "expired"
	SandboxEndReleased = "released"
	SandboxEndFailed   = "provisioning_failed"
	// SandboxEndReaped: the orphan reaper destroyed the machine after its
	// workflow was gone (reported by the reaper, not by the workflow).
	SandboxEndReaped = "reaped"
)

// SandboxWorkflowID returns the workflow ID of a sandbox.
func SandboxWorkflowID(uid string) string { return SandboxIDPrefix + uid }
