// Package flywheel serves the flywheel wire contract (contracts/
// flywheel-1.schema.json): turns intake, claims, fenced lease heartbeats,
// output intake, the operator's rollout endpoints and the per-rollout LLM
// gateway.
//
// Authority: the rollout workflow (workflows/flywheel) owns the lifecycle;
// the database row owns the lease fence and output acceptance (see
// models/flywheel). Handlers decide in the row, writing in the same
// statement the outbox notice that tells the workflow off the request
// path (notifier); no request waits for Temporal but an enqueue or cancel.
package flywheel

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/contracts"
	models "github.com/gatehouse/gatehouse/models/flywheel"
)

// Temporal is the part of the Temporal client the handlers use.
type Temporal interface {
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error)
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Options configure the handlers.
type Options struct {
	// PublicURL is the base of every llm_url handed out.
	PublicURL string
	// TaskQueue is where rollout workflows run.
	TaskQueue string
	// LeaseMin and LeaseMax clamp a claim's requested lease.
	LeaseMin, LeaseMax time.Duration
	// DefaultLease is granted when a claim names none.
	DefaultLease time.Duration
	// PollAfter is the backoff hint of an empty claim.
	PollAfter time.Duration
	// MaxAttempts bounds leases per rollout unless an enqueue says otherwise.
	MaxAttempts int
	// Upstream is the OpenAI-compatible base URL (…/v1); empty: 503.
	Upstream string
	// UpstreamKey is the bearer sent upstream.
	UpstreamKey string
	// UpstreamTimeout bounds one gateway call end to end, a streamed
	// completion included (default 10m); UpstreamHeaderTimeout bounds the
	// wait for the upstream's first response byte (default 60s).
	UpstreamTimeout, UpstreamHeaderTimeout time.Duration
	// AuthCacheTTL is how long a claimer's authenticated key is reused
	// without a database read (default DefaultAuthCacheTTL; negative: no
	// cache). A revoked key stops claiming within it.
	AuthCacheTTL time.Duration
	// HeartbeatDB is the pool heartbeats extend leases through
	// (models.OpenHeartbeatPool); nil: the handler's database.
	HeartbeatDB *gorm.DB
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// UpstreamClient proxies gateway calls (http.DefaultTransport when nil).
	UpstreamClient http.RoundTripper
}

// Handler holds the compiled schemas and dependencies.
type Handler struct {
	db       *gorm.DB
	temporal Temporal
	schemas  *contracts.Flywheel
	opts     Options
	log      *slog.Logger
	// heartbeats delivers heartbeat signals off the request path.
	heartbeats *heartbeatSignaller
	// notices tells workflows of grants and outputs from the outbox.
	notices *notifier
	// outputs commits the outputs that arrive together in one statement.
	outputs *models.OutputBatcher
	// agents authenticates claimers with a short-lived cache.
	agents *agentAuth
	// beats extends the leases of heartbeats that arrive together in one
	// statement (PostgreSQL) or transaction (SQLite); nil for a pool it
	// cannot hold a connection of.
	beats *models.HeartbeatBatcher
	// inFlight counts the claims, heartbeats and outputs being served;
	// lastDone is when the last of them ended, in nanoseconds since
	// started; idleGap is how long after it the process still counts as
	// busy (busy).
	inFlight atomic.Int64
	lastDone atomic.Int64
	started  time.Time
	idleGap  atomic.Int64 // a time.Duration
}

// noticeIdleGap is how long after its last agent request a process still
// counts as busy: under load requests come closer together than this, so
// a notice waits for the lull after a burst (or its yield), not for the
// gaps between the burst's requests. At 20 ms the gaps at a paced burst's
// edges, and those of a client or front starved of CPU, let notices
// through in the middle of the burst, and each set off a signal, a
// workflow task and a finalize there: on the production topology the
// Temporal server took 14% of the machine during the beat that meets the
// outputs, and the beat's heartbeats and outputs waited for it.
const noticeIdleGap = 200 * time.Millisecond

// New compiles the contract once and returns the handlers.
func New(db *gorm.DB, t Temporal, log *slog.Logger, opts Options) (*Handler, error) {
	schemas, err := contracts.CompileFlywheel()
	if err != nil {
		return nil, err
	}
	if opts.LeaseMin <= 0 {
		opts.LeaseMin = 5 * time.Second
	}
	if opts.LeaseMax < opts.LeaseMin {
		opts.LeaseMax = opts.LeaseMin
	}
	if opts.DefaultLease <= 0 {
		opts.DefaultLease = 60 * time.Second
	}
	if opts.PollAfter <= 0 {
		opts.PollAfter = 2 * time.Second
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 3
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.HeartbeatDB == nil {
		opts.HeartbeatDB = db
	}
	if opts.UpstreamTimeout <= 0 {
		opts.UpstreamTimeout = 10 * time.Minute
	}
	if opts.UpstreamHeaderTimeout <= 0 {
		opts.UpstreamHeaderTimeout = time.Minute
	}
	if opts.UpstreamClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = opts.UpstreamHeaderTimeout
		opts.UpstreamClient = t
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hb := newHeartbeatSignaller(t, log, opts.Now)
	h := &Handler{db: db, temporal: t, schemas: schemas, opts: opts, log: log, heartbeats: hb,
		agents: newAgentAuth(db, opts.AuthCacheTTL, opts.Now), beats: models.NewHeartbeatBatcher(opts.HeartbeatDB),
		outputs: models.NewOutputBatcher(db), started: time.Now()}
	h.idleGap.Store(int64(noticeIdleGap))
	h.lastDone.Store(-int64(time.Hour))
	h.notices = newNotifier(db, t, log, opts.Now, hb, h.busy)
	return h, nil
}

// counted counts the agent request it wraps as in flight while it runs
// (notices yield to such requests; notifier).
func (h *Handler) counted(c *gin.Context) {
	h.inFlight.Add(1)
	defer h.requestDone()
	c.Next()
}

// requestDone ends an agent request counted in flight.
func (h *Handler) requestDone() {
	h.lastDone.Store(int64(time.Since(h.started)))
	h.inFlight.Add(-1)
}

// busy tells whether agent requests are in flight or one ended less than
// idleGap ago.
func (h *Handler) busy() bool {
	return h.inFlight.Load() > 0 || time.Since(h.started)-time.Duration(h.lastDone.Load()) < time.Duration(h.idleGap.Load())
}

// clampLease applies the configured bounds to a requested lease.
func (h *Handler) clampLease(seconds float64) time.Duration {
	d := time.Duration(seconds * float64(time.Second))
	if seconds <= 0 {
		d = h.opts.DefaultLease
	}
	if d < h.opts.LeaseMin {
		d = h.opts.LeaseMin
	}
	if d > h.opts.LeaseMax {
		d = h.opts.LeaseMax
	}
	return d
}

// epochSeconds is the wire form of a time (absolute epoch seconds).
func epochSeconds(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }
