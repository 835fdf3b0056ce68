package research

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"
	"go.temporal.io/sdk/temporal"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// extendService is a service with running sandbox sbx_e of project prj_k
// whose workflow state query answers before (once: sandbox.extend reads
// the state only before its Update).
func extendService(t *testing.T, before wf.SandboxState) (*Service, *mocks.Client) {
	t.Helper()
	s := newTestService(t)
	s.DB = modelstest.SQLite(t)
	tc := &mocks.Client{}
	s.Temporal = tc
	if err := s.DB.Create(&models.Project{ID: "prj_k", Name: "extend-project", CreatedBy: "op"}).Error; err != nil {
		t.Fatal(err)
	}
	storeSandbox(t, s, "sbx_e", "local", models.SandboxRunning, "127.0.0.1")
	tc.On("QueryWorkflow", mock.Anything, wf.SandboxWorkflowID("sbx_e"), "", wf.SandboxStateQuery).Return(queriedState{before}, nil).Once()
	return s, tc
}

// extendOptions is the Update sandbox.extend must send after reading revision.
func extendOptions(revision, seconds int) client.UpdateWorkflowOptions {
	return client.UpdateWorkflowOptions{WorkflowID: wf.SandboxWorkflowID("sbx_e"), UpdateID: extendUpdateID("sbx_e", revision, seconds),
		UpdateName: wf.SandboxExtendUpdate, Args: []any{wf.SandboxExtend{Seconds: seconds}}, WaitForStage: client.WorkflowUpdateStageCompleted}
}

// answering is an Update handle whose Get answers st, or err.
func answering(st wf.SandboxState, err error) *mocks.WorkflowUpdateHandle {
	h := &mocks.WorkflowUpdateHandle{}
	h.On("Get", mock.Anything, mock.Anything).Run(func(args mock.Arguments) {
		if err == nil {
			*args.Get(1).(*wf.SandboxState) = st
		}
	}).Return(err)
	return h
}

func invokeExtend(s *Service, args string) (any, *ToolError) {
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	return s.Invoke(context.Background(), agent, "sandbox.extend", json.RawMessage(args))
}

// TestSandboxExtend_AnswersTheStateItsUpdateReturned: sandbox.extend is
// the workflow's extend Update (seconds resolved, keyed by the sandbox,
// the revision read before and the seconds), answered from the state the
// Update returned: no signal, no polling query after it.
func TestSandboxExtend_AnswersTheStateItsUpdateReturned(t *testing.T) {
	expires := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		args    string
		seconds int
	}{{`{"project_id":"prj_k","sandbox_uid":"sbx_e","seconds":900}`, 900}, {`{"project_id":"prj_k","sandbox_uid":"sbx_e"}`, 1800}} {
		s, temporalc := extendService(t, wf.SandboxState{UID: "sbx_e", Status: wf.SandboxRunning, ExpiresAt: expires, Revision: 4})
		after := wf.SandboxState{UID: "sbx_e", Status: wf.SandboxRunning, ExpiresAt: expires.Add(time.Duration(tc.seconds) * time.Second), Revision: 5}
		temporalc.On("UpdateWorkflow", mock.Anything, extendOptions(4, tc.seconds)).Return(answering(after, nil), nil).Once()
		out, terr := invokeExtend(s, tc.args)
		if terr != nil {
			t.Fatalf("%s: %+v", tc.args, terr)
		}
		got, ok := out.(sandboxExtendResp)
		want := sandboxExtendResp{SandboxUID: "sbx_e", Extended: true, AddedSeconds: tc.seconds, ExpiresAt: after.ExpiresAt, Status: wf.SandboxRunning}
		if !ok || got != want {
			t.Fatalf("%s: answered %+v, want %+v", tc.args, out, want)
		}
		temporalc.AssertExpectations(t)
		temporalc.AssertNotCalled(t, "SignalWorkflow", mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything)
	}
}

// TestSandboxExtend_ValidatorRefusalsAreTypedToolErrors: the workflow's
// refusal of an ended sandbox is a conflict at /sandbox_uid, of bad
// seconds invalid input at /seconds; neither is retryable.
func TestSandboxExtend_ValidatorRefusalsAreTypedToolErrors(t *testing.T) {
	for _, tc := range []struct{ typ, code, pointer string }{
		{wf.ErrTypeSandboxEnded, CodeConflict, "/sandbox_uid"},
		{wf.ErrTypeInvalidInput, CodeInvalidInput, "/seconds"},
	} {
		s, temporalc := extendService(t, wf.SandboxState{UID: "sbx_e", Status: wf.SandboxRunning, Revision: 2})
		refusal := temporal.NewApplicationErrorWithOptions("refused", tc.typ, temporal.ApplicationErrorOptions{NonRetryable: true})
		temporalc.On("UpdateWorkflow", mock.Anything, extendOptions(2, 60)).Return(answering(wf.SandboxState{}, refusal), nil).Once()
		_, terr := invokeExtend(s, `{"project_id":"prj_k","sandbox_uid":"sbx_e","seconds":60}`)
		if terr == nil || terr.Code != tc.code || terr.Pointer != tc.pointer || terr.Details["retryable"] == true {
			t.Errorf("%s refusal: %+v, want %s at %s", tc.typ, terr, tc.code, tc.pointer)
		}
		temporalc.AssertExpectations(t)
	}
}

// TestSandboxExtend_TransientFailuresRetryUnderTheSameUpdateID: a
// transient failure is retried with the same Update ID (Temporal applies
// it once); Temporal out of reach for the whole wait answers a retryable
// unavailable.
func TestSandboxExtend_TransientFailuresRetryUnderTheSameUpdateID(t *testing.T) {
	prev := sandboxExtendWait
	sandboxExtendWait = time.Second
	t.Cleanup(func() { sandboxExtendWait = prev })

	s, temporalc := extendService(t, wf.SandboxState{UID: "sbx_e", Status: wf.SandboxRunning, Revision: 7})
	after := wf.SandboxState{UID: "sbx_e", Status: wf.SandboxRunning, Revision: 8}
	temporalc.On("UpdateWorkflow", mock.Anything, extendOptions(7, 60)).Return(nil, down()).Once()
	temporalc.On("UpdateWorkflow", mock.Anything, extendOptions(7, 60)).Return(answering(after, nil), nil).Once()
	out, terr := invokeExtend(s, `{"project_id":"prj_k","sandbox_uid":"sbx_e","seconds":60}`)
	if terr != nil || !out.(sandboxExtendResp).Extended {
		t.Fatalf("after a transient failure: %+v %+v", out, terr)
	}
	temporalc.AssertExpectations(t)

	s, temporalc = extendService(t, wf.SandboxState{UID: "sbx_e", Status: wf.SandboxRunning, Revision: 7})
	temporalc.On("UpdateWorkflow", mock.Anything, extendOptions(7, 60)).Return(nil, down())
	_, terr = invokeExtend(s, `{"project_id":"prj_k","sandbox_uid":"sbx_e","seconds":60}`)
	if terr == nil || terr.Code != CodeUnavailable || terr.Details["retryable"] != true {
		t.Fatalf("Temporal down: %+v, want a retryable unavailable", terr)
	}
}

// TestSandboxExtend_AWorkerWithoutTheUpdateGetsTheSignal: during a rolling
// deploy a worker of the previous release rejects the extend Update as
// unknown; the api sends it the signal it knows and answers from one
// state query.
func TestSandboxExtend_AWorkerWithoutTheUpdateGetsTheSignal(t *testing.T) {
	s, temporalc := extendService(t, wf.SandboxState{UID: "sbx_e", Status: wf.SandboxRunning, Revision: 3})
	unknown := errors.New("unknown update sandbox-extend. KnownUpdates=[sandbox-release sandbox-provisioned]")
	temporalc.On("UpdateWorkflow", mock.Anything, extendOptions(3, 120)).Return(answering(wf.SandboxState{}, unknown), nil).Once()
	temporalc.On("SignalWorkflow", mock.Anything, wf.SandboxWorkflowID("sbx_e"), "", wf.SandboxExtendSignal, wf.SandboxExtend{Seconds: 120}).Return(nil).Once()
	after := wf.SandboxState{UID: "sbx_e", Status: wf.SandboxRunning, Revision: 4, ExpiresAt: time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC)}
	temporalc.On("QueryWorkflow", mock.Anything, wf.SandboxWorkflowID("sbx_e"), "", wf.SandboxStateQuery).Return(queriedState{after}, nil).Once()
	out, terr := invokeExtend(s, `{"project_id":"prj_k","sandbox_uid":"sbx_e","seconds":120}`)
	if terr != nil {
		t.Fatal(terr)
	}
	if got := out.(sandboxExtendResp); !got.Extended || !got.ExpiresAt.Equal(after.ExpiresAt) || got.AddedSeconds != 120 {
		t.Fatalf("answered %+v", got)
	}
	temporalc.AssertExpectations(t)
}
