// Package sandbox provisions research sandboxes: machines an agent reaches
// over SSH with its own key, whose commands are recorded as runs. Providers
// sit behind one small interface; the local provider (the dev default) runs
// an SSH server on loopback per sandbox with a private working directory,
// each command confined by bubblewrap (see Local and SECURITY.md).
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Typed errors callers can inspect with errors.Is.
var (
	// ErrUnknownProvider names a provider this deployment does not offer.
	ErrUnknownProvider = errors.New("sandbox: unknown provider")
	// ErrUnknownInstanceType names an instance type the provider lacks.
	ErrUnknownInstanceType = errors.New("sandbox: unknown instance type")
	// ErrBadPublicKey is a public key that does not parse.
	ErrBadPublicKey = errors.New("sandbox: public key does not parse")
	// ErrPathOutside is a path that leaves the sandbox working directory.
	ErrPathOutside = errors.New("sandbox: path leaves the working directory")
	// ErrNotFound is a sandbox or file the provider does not have.
	ErrNotFound = errors.New("sandbox: not found")
	// ErrTooLarge is a file over the size a read allows.
	ErrTooLarge = errors.New("sandbox: file too large")
)

// InstanceType is one machine shape a provider offers.
type InstanceType struct {
	Provider string  `json:"provider"`
	Name     string  `json:"instance_type"`
	CPU      float64 `json:"cpu"`
	MemoryMB int     `json:"memory_mb"`
	GPU      int     `json:"gpu"`
	GPUKind  string  `json:"gpu_kind,omitempty"`
	Region   string  `json:"region"`
}

// Spec is what a sandbox is provisioned with.
type Spec struct {
	UID          string        `json:"uid"`
	Provider     string        `json:"provider"`
	InstanceType string        `json:"instance_type"`
	Region       string        `json:"region"`
	CPU          float64       `json:"cpu"`
	MemoryMB     int           `json:"memory_mb"`
	GPU          int           `json:"gpu"`
	PublicKey    string        `json:"public_key"`
	TimeLimit    time.Duration `json:"time_limit"`
	// Port is the SSH port to keep when re-provisioning after a restart
	// (0: any); a provider that cannot honour it picks another.
	Port int `json:"port,omitempty"`
	// MaxLifetime is the longest the sandbox may live, extends included
	// (0: TimeLimit); a provider may end the machine by itself after it.
	MaxLifetime time.Duration `json:"max_lifetime,omitempty"`
	// InspectToken is the bearer token of the sandbox's agent, from the
	// sandbox's row; never serialized.
	InspectToken string `json:"-"`
}

// Endpoint is how an agent reaches a provisioned sandbox.
type Endpoint struct {
	Host    string `json:"ssh_host"`
	Port    int    `json:"ssh_port"`
	User    string `json:"ssh_user"`
	Workdir string `json:"workdir"`
	// InspectURL reaches the sandbox agent that records a remote
	// sandbox's runs (see package sandbox/agent); empty for local
	// sandboxes and for Pods without the agent. InspectToken is set only
	// for a Pod from before tokens were hashed (its spec holds it).
	InspectURL   string `json:"-"`
	InspectToken string `json:"-"`
}

// Run is one command executed in a sandbox.
type Run struct {
	Seq       int        `json:"seq"`
	Command   string     `json:"command"`
	Status    string     `json:"status"` // running | exited | killed
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	ExitCode  *int       `json:"exit_code,omitempty"`
	Output    string     `json:"output"`
	Truncated bool       `json:"output_truncated,omitempty"`
}

// Run statuses.
const (
	RunRunning = "running"
	RunExited  = "exited"
	RunKilled  = "killed"
)

// Provider creates and destroys sandboxes. Provision and Destroy are
// idempotent: the sandbox workflow retries them.
type Provider interface {
	Name() string
	Options() []InstanceType
	Provision(ctx context.Context, spec Spec) (Endpoint, error)
	Destroy(ctx context.Context, uid string) error
	Health(ctx context.Context) error
}

// Inspector reads what happened inside a sandbox: its runs and its files.
type Inspector interface {
	Runs(uid string) ([]Run, error)
	// ReadFile returns the bytes of rel inside the sandbox working directory;
	// a path that leaves it answers ErrPathOutside.
	ReadFile(uid, rel string, max int64) ([]byte, error)
	// Files lists regular files in the working directory (relative paths).
	Files(uid string, max int) ([]string, error)
}

// Lookup returns the instance type name of provider p, or the first one
// matching gpu when name is empty.
func Lookup(p Provider, name string, gpu bool) (InstanceType, error) {
	for _, it := range p.Options() {
		if name == "" && (it.GPU > 0) == gpu || name != "" && it.Name == name {
			return it, nil
		}
	}
	return InstanceType{}, ErrUnknownInstanceType
}

// Providers are the providers a deployment offers, in configured order;
// the first is the default.
type Providers struct {
	list []Provider
}

// NewProviders is the set of ps; a later provider with an earlier one's
// name is dropped.
func NewProviders(ps ...Provider) Providers {
	var out Providers
	for _, p := range ps {
		if _, err := out.Get(p.Name()); p.Name() != "" && err != nil {
			out.list = append(out.list, p)
		}
	}
	return out
}

// Get returns the named provider; "" names the default one.
func (p Providers) Get(name string) (Provider, error) {
	if name == "" && len(p.list) > 0 {
		return p.list[0], nil
	}
	for _, pr := range p.list {
		if pr.Name() == name {
			return pr, nil
		}
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownProvider, name)
}

// All returns the providers in configured order.
func (p Providers) All() []Provider { return append([]Provider(nil), p.list...) }

// Default names the default provider ("" when there is none).
func (p Providers) Default() string {
	if len(p.list) == 0 {
		return ""
	}
	return p.list[0].Name()
}

// Unavailable stands in for a configured provider that could not be built
// (no cluster credentials, an unknown run-as user): it offers nothing and
// every call answers Err, so health checks and requests say why.
type Unavailable struct {
	ProviderName string
	Err          error
}

// Name implements Provider.
func (u Unavailable) Name() string { return u.ProviderName }

// Options implements Provider: nothing can be requested.
func (u Unavailable) Options() []InstanceType { return nil }

// Provision implements Provider.
func (u Unavailable) Provision(context.Context, Spec) (Endpoint, error) { return Endpoint{}, u.Err }

// Destroy implements Provider.
func (u Unavailable) Destroy(context.Context, string) error { return u.Err }

// Health implements Provider.
func (u Unavailable) Health(context.Context) error { return u.Err }
