package research

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"

	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// TestNotice_SentAsAnAcceptedUpdateKeyedByItsRecord: a notice is the
// NoticeUpdate of its record, waited for only until accepted (it is sent
// inside the transaction that writes the record), under the record's
// Update ID so a retry is deduplicated; answer reads the state.
func TestNotice_SentAsAnAcceptedUpdateKeyedByItsRecord(t *testing.T) {
	s := newTestService(t)
	tc := &mocks.Client{}
	s.Temporal = tc
	h := &mocks.WorkflowUpdateHandle{}
	h.On("Get", mock.Anything, mock.Anything).Run(func(args mock.Arguments) {
		*args.Get(1).(*wf.ExperimentState) = wf.ExperimentState{Revision: 7}
	}).Return(nil).Once()
	tc.On("UpdateWorkflow", mock.Anything, client.UpdateWorkflowOptions{WorkflowID: wf.ExperimentWorkflowID("exp_n"), UpdateID: "artifact-landed/art_1",
		UpdateName: wf.NoticeUpdate, Args: []any{wf.Notice{Signal: wf.ArtifactLandedSignal, RecordID: "art_1"}},
		WaitForStage: client.WorkflowUpdateStageAccepted}).Return(h, nil).Once()
	n, err := s.notify(context.Background(), "exp_n", wf.ArtifactLandedSignal, "art_1", wf.ArtifactRef{ArtifactID: "art_1"})
	if err != nil {
		t.Fatal(err)
	}
	var st wf.ExperimentState
	if !n.answer(context.Background(), &st) || st.Revision != 7 {
		t.Fatalf("answer: %+v", st)
	}
	tc.AssertExpectations(t)
	h.AssertExpectations(t)
}

// TestNotice_AWorkerWithoutTheUpdateGetsTheSignal: during a rolling
// deploy a worker of the previous release rejects NoticeUpdate as an
// unknown update; the api then sends the signal that worker knows.
func TestNotice_AWorkerWithoutTheUpdateGetsTheSignal(t *testing.T) {
	s := newTestService(t)
	tc := &mocks.Client{}
	s.Temporal = tc
	h := &mocks.WorkflowUpdateHandle{}
	h.On("Get", mock.Anything, mock.Anything).Return(errors.New("unknown update notice. KnownUpdates=[transition]")).Once()
	tc.On("UpdateWorkflow", mock.Anything, mock.Anything).Return(h, nil).Once()
	legacy := wf.ReviewStarted{Kind: "design", RequestID: "rr_1"}
	tc.On("SignalWorkflow", mock.Anything, wf.ReflectionWorkflowID("ref_n"), "", wf.ReviewStartedSignal, legacy).Return(nil).Once()
	n, err := s.notifyReflection(context.Background(), "ref_n", wf.ReviewStartedSignal, "rr_1", legacy)
	if err != nil {
		t.Fatal(err)
	}
	if n.answer(context.Background(), nil) {
		t.Fatal("an old worker's answer claimed the state")
	}
	tc.AssertExpectations(t)
}
