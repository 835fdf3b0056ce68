package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/flywheel"
	consolemodel "github.com/gatehouse/gatehouse/models/console"
	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
)

// flywheelSource adapts the flywheel (#5) to the console. A rollout's view
// (its on_policy verdict, call counts, exclusion) and the cancel are the
// flywheel's own operator handlers (GET /operator/v1/rollouts/:id, POST
// /operator/v1/rollouts/:id/cancel), run in process on a private router,
// so the console shows and does exactly what the REST operator endpoints
// do. Which rollouts make a page (keyset, filtered), the queue counts and
// the lease history are read from the database.
type flywheelSource struct {
	db  *gorm.DB
	ops http.Handler
}

func newFlywheelSource(db *gorm.DB, h *flywheel.Handler) *flywheelSource {
	e := gin.New()
	e.GET("/rollouts/:id", h.GetRollout)
	e.POST("/rollouts/:id/cancel", h.Cancel)
	return &flywheelSource{db: db, ops: e}
}

// rolloutJSON is the part of the flywheel's rollout view the console shows.
type rolloutJSON struct {
	RolloutID        string     `json:"rollout_id"`
	WorkflowID       string     `json:"workflow_id"`
	Status           string     `json:"status"`
	Owner            string     `json:"owner"`
	Attempts         int        `json:"attempts"`
	LLMCallsObserved int        `json:"llm_calls_observed"`
	LLMCallsReported *int       `json:"llm_call_count_reported"`
	OnPolicy         *bool      `json:"on_policy"`
	CreatedAt        time.Time  `json:"created_at"`
	FinishedAt       *time.Time `json:"finished_at"`
	Exclusion        *struct {
		Reason string  `json:"reason"`
		Detail *string `json:"detail"`
	} `json:"exclusion"`
	GatewayCalls []struct {
		Model string `json:"model"`
	} `json:"gateway_calls_derived"`
	LeaseHistory []flywheel.LeaseView `json:"lease_history"`
}

func (j rolloutJSON) row() RolloutRow {
	r := RolloutRow{ID: j.RolloutID, State: j.Status, Owner: j.Owner, OnPolicy: j.OnPolicy, GatewayCalls: j.LLMCallsObserved,
		Attempts: j.Attempts, CreatedAt: j.CreatedAt, UpdatedAt: j.CreatedAt, WorkflowID: j.WorkflowID}
	if j.FinishedAt != nil {
		r.UpdatedAt = *j.FinishedAt
	}
	return r
}

// RolloutOverview counts the queue and lists one page of rollouts; the
// page's rows come from the database, each row's view from the flywheel's
// own GET /operator/v1/rollouts/:id.
func (f *flywheelSource) RolloutOverview(ctx context.Context, filter RolloutFilter, p Page) (RolloutCounts, ListPage[RolloutRow], error) {
	var page ListPage[RolloutRow]
	var c RolloutCounts
	var groups []struct {
		Status string
		N      int
	}
	if err := f.db.WithContext(ctx).Model(&fwmodels.Rollout{}).Select("status, count(*) AS n").Group("status").Scan(&groups).Error; err != nil {
		return c, page, err
	}
	for _, g := range groups {
		switch g.Status {
		case fwmodels.StatusQueued:
			c.Queued = g.N
		case fwmodels.StatusLeased:
			c.Leased = g.N
		case fwmodels.StatusCompleted:
			c.Completed = g.N
		case fwmodels.StatusExcluded:
			c.Excluded = g.N
		}
	}
	var cancelled int64
	if err := f.db.WithContext(ctx).Model(&fwmodels.Rollout{}).Where("exclusion_reason = ?", "cancelled").Count(&cancelled).Error; err != nil {
		return c, page, err
	}
	c.Cancelled = int(cancelled)
	rows, next, err := consolemodel.ListRollouts(ctx, f.db, filter, p)
	if err != nil {
		return c, page, err
	}
	page.Items = make([]RolloutRow, 0, len(rows))
	for _, r := range rows {
		var j rolloutJSON
		if err := f.call(ctx, http.MethodGet, "/rollouts/"+url.PathEscape(r.ID), &j); err != nil {
			return c, page, err
		}
		page.Items = append(page.Items, j.row())
	}
	if next != nil {
		page.Next = next.String()
	}
	return c, page, nil
}

// Rollout returns one rollout with its lease history and calls by model.
func (f *flywheelSource) Rollout(ctx context.Context, id string) (RolloutDetail, error) {
	var j rolloutJSON
	if err := f.call(ctx, http.MethodGet, "/rollouts/"+url.PathEscape(id), &j); err != nil {
		return RolloutDetail{}, err
	}
	d := RolloutDetail{RolloutRow: j.row(), ReportedCalls: j.LLMCallsReported,
		Finished: j.Status == fwmodels.StatusCompleted || j.Status == fwmodels.StatusExcluded}
	if j.Exclusion != nil {
		d.Exclusion = j.Exclusion.Reason
	}
	for _, l := range j.LeaseHistory {
		ls := Lease{Epoch: int(l.Epoch), Holder: l.ClaimedBy, LeasedAt: l.GrantedAt, ExpiresAt: l.ExpiresAt, Heartbeats: int(l.Heartbeats)}
		if l.EndedAt != nil {
			ls.EndedAt = *l.EndedAt
		}
		if l.EndReason != nil {
			ls.Outcome = *l.EndReason
		}
		d.Leases = append(d.Leases, ls)
	}
	byModel := map[string]int{}
	for _, c := range j.GatewayCalls {
		byModel[c.Model]++
	}
	for m, n := range byModel {
		if m == "" {
			m = "(unnamed)"
		}
		d.CallsByModel = append(d.CallsByModel, Count{Label: m, N: n})
	}
	sort.Slice(d.CallsByModel, func(a, b int) bool { return d.CallsByModel[a].Label < d.CallsByModel[b].Label })
	return d, nil
}

// CancelRollout runs the flywheel's operator cancel. The reason is kept by
// the console's form only: the flywheel's cancel records its own detail.
func (f *flywheelSource) CancelRollout(ctx context.Context, _ Operator, id, _ string) error {
	return f.call(ctx, http.MethodPost, "/rollouts/"+url.PathEscape(id)+"/cancel", nil)
}

// call runs one operator handler in process and decodes its answer; its
// 404 and 409 become ErrNotFound and ErrConflict with the handler's message.
func (f *flywheelSource) call(ctx context.Context, method, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, path, nil)
	if err != nil {
		return err
	}
	w := &memoryResponse{header: http.Header{}}
	f.ops.ServeHTTP(w, req)
	if w.status >= 300 {
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(w.body.Bytes(), &e)
		msg := strings.TrimSpace(e.Error.Message)
		switch w.status {
		case http.StatusNotFound:
			return fmt.Errorf("%w: %s", ErrNotFound, msg)
		case http.StatusConflict, http.StatusGone:
			return fmt.Errorf("%w: %s", ErrConflict, msg)
		case http.StatusBadRequest, http.StatusUnprocessableEntity:
			return fmt.Errorf("%w: %s", ErrInvalid, msg)
		}
		return fmt.Errorf("flywheel %s %s: HTTP %d %s", method, path, w.status, msg)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(w.body.Bytes(), out)
}
