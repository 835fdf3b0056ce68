package research

import "time"

// SandboxInput starts a sandbox workflow; plain fields only, so the
// workflow needs nothing but the SDK.
type SandboxInput struct {
	UID          string
	ProjectID    string
	Provider     string
	InstanceType string
	Region       string
	CPU          float64
	MemoryMB     int
	GPU          int
	PublicKey    string
	// TimeLimit is how long the sandbox lives unless extended or released.
	TimeLimit time.Duration
	// Port is the SSH port to keep when re-provisioning (0: any).
	Port int `json:",omitempty"`
	// MaxLifetime caps the sandbox's whole life from its first start,
	// every extend included (0: no cap, as runs before the cap).
	MaxLifetime time.Duration `json:",omitempty"`
	// Resume is the state a run that continued as new hands its next run:
	// the machine is up, so the next run waits without provisioning.
	Resume *SandboxState `json:",omitempty"`
}

// SandboxEndpoint is what provisioning answers: where to SSH.
type SandboxEndpoint struct {
	Host    string
	Port    int
	User    string
	Workdir string
	// HostQueue is the host task queue of the worker that holds a local
	// sandbox (its SSH server and files): re-provisioning and teardown run
	// there. Empty for providers any worker can reach.
	HostQueue string `json:",omitempty"`
	// InspectURL reaches the sandbox agent of a Pod that records its runs
	// (kubernetes with an agent image). Its bearer token lives in the
	// sandbox's row; InspectToken is set only by Pods made before that
	// (their spec held it), so no newer history or query carries one.
	InspectURL   string `json:",omitempty"`
	InspectToken string `json:",omitempty"`
}

// SandboxExtend asks for more time. Sent as SandboxExtendSignal, Seconds
// ≤ 0 means the default and more than SandboxMaxExtend is capped; as
// SandboxExtendUpdate, Seconds must be 1 to SandboxMaxExtend (the caller
// resolves the default with ExtendBy).
type SandboxExtend struct {
	Seconds int
}

// SandboxReprovision asks for the machine to be brought back up.
type SandboxReprovision struct {
	Reason string
}

// SandboxRelease asks for teardown.
type SandboxRelease struct {
	Reason string
}

// SandboxDestroy names the machine to destroy.
type SandboxDestroy struct {
	UID      string
	Provider string
}

// SandboxState is the workflow's view: the authority for status and expiry.
type SandboxState struct {
	UID       string
	Status    string
	Endpoint  SandboxEndpoint
	ExpiresAt time.Time
	EndReason string
	Error     string
	// Extended is the total time added by extends (signals and Updates).
	Extended time.Duration
	// LifetimeEndsAt is the latest ExpiresAt any extend reaches
	// (SandboxInput.MaxLifetime after the start; zero: no cap).
	LifetimeEndsAt time.Time `json:",omitempty"`
	// Revision counts applied signals and extend Updates, so a caller can
	// await its own.
	Revision int
}

// SandboxRecord is what RecordSandboxActivity mirrors into the database.
type SandboxRecord struct {
	UID       string
	Status    string
	Endpoint  SandboxEndpoint
	ExpiresAt time.Time
	Error     string
	// EndReason is why the sandbox ended (SandboxState.EndReason), which
	// the attached experiment learns (SandboxActivity.Ended).
	EndReason string `json:",omitempty"`
}
