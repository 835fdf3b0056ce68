package research

import (
	"context"
	"strings"
	"time"

	"go.temporal.io/sdk/client"

	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// How long a notice waits for its workflow: to accept it (inside the
// transaction that writes its record, so a Temporal without workers
// aborts the write instead of holding it open) and then to apply it.
const (
	noticeAcceptWait = 10 * time.Second
	noticeAnswerWait = 10 * time.Second
)

// notice is a NoticeUpdate its workflow accepted: accepted Updates are
// durable, like the signal the notice replaces, so it may be sent inside
// the transaction that writes its record; answer, once committed, reads
// the state the workflow answers with the record applied.
type notice struct {
	s          *Service
	handle     client.WorkflowUpdateHandle
	workflowID string
	signal     string
	// legacy is the signal's payload, for a worker of a release without
	// NoticeUpdate (a rolling deploy).
	legacy any
}

// sendNotice sends NoticeUpdate for recordID to workflowID and returns
// once the workflow's validator accepted it.
func (s *Service) sendNotice(ctx context.Context, workflowID, signal, recordID string, legacy any) (*notice, error) {
	n := wf.Notice{Signal: signal, RecordID: recordID}
	uctx, cancel := context.WithTimeout(ctx, noticeAcceptWait)
	defer cancel()
	h, err := s.Temporal.UpdateWorkflow(uctx, client.UpdateWorkflowOptions{WorkflowID: workflowID, UpdateID: n.UpdateID(),
		UpdateName: wf.NoticeUpdate, Args: []any{n}, WaitForStage: client.WorkflowUpdateStageAccepted})
	if err != nil {
		return nil, err
	}
	return &notice{s: s, handle: h, workflowID: workflowID, signal: signal, legacy: legacy}, nil
}

// answer waits until the workflow applied the notice and decodes the
// state it answers into out (nil to only wait), so the caller reads its
// own write. It reports false when no answer came in time; the record is
// written either way, and the workflow applies it once.
func (n *notice) answer(ctx context.Context, out any) bool {
	if n == nil {
		return false
	}
	actx, cancel := context.WithTimeout(ctx, noticeAnswerWait)
	defer cancel()
	err := n.handle.Get(actx, out)
	if err != nil && strings.Contains(err.Error(), "unknown update") {
		// A worker of an older release has no NoticeUpdate: tell it by the
		// signal it knows (it verifies the committed record just the same).
		err = n.s.Temporal.SignalWorkflow(ctx, n.workflowID, "", n.signal, n.legacy)
		if err == nil {
			return false
		}
	}
	if err != nil {
		if l := n.s.Log; l != nil {
			l.WarnContext(ctx, "research: a workflow did not answer its notice", "workflow", n.workflowID, "signal", n.signal, "error", err)
		}
		return false
	}
	return true
}
