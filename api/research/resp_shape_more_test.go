package research

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/mocks"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/models/modelstest"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// More pinned bytes (see resp_shape_sandbox_storage_test.go): an
// experiment with an active sandbox, artifact guidance and a plan; and
// consolidation.get's packet with and without recorded code.
func TestRespShape_StatusWithSandboxAndPlan(t *testing.T) {
	s := newTestService(t)
	s.DB = modelstest.SQLite(t)
	s.Config.Features.Sandboxes = true
	fs, err := blobstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Blobs = fs
	tc := &mocks.Client{}
	s.Temporal = tc
	info, err := fs.Put(context.Background(), "k/plan", strings.NewReader("# Plan\nthe plan\n"), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	up := pinT0.Add(time.Minute)
	for _, row := range []any{&models.Project{ID: "prj_p", Name: "plan", CreatedBy: "op", CreatedAt: pinT0, UpdatedAt: pinT0},
		&models.Experiment{ID: "exp_p", ProjectID: "prj_p", Name: "p", Status: string(gates.Planned), CreatedAt: pinT0, UpdatedAt: pinT0},
		&models.Artifact{ID: "art_p", ProjectID: "prj_p", TargetType: "experiment", TargetID: "exp_p", Role: "plan", Path: "plan.md",
			UploadTokenHash: "h1", BlobKey: "k/plan", SHA256: info.SHA256, Size: info.Size, Valid: false, Problems: "no sections\nno TLDR",
			UploadedAt: &up, CreatedAt: pinT0},
		&models.Sandbox{UID: "sbx_p", ProjectID: "prj_p", ExperimentID: "exp_p", Provider: "local", InstanceType: "local-small", PublicKey: "k",
			Status: models.SandboxRunning, SSHHost: "h", SSHPort: 22, SSHUser: "u", Workdir: "/w", ExpiresAt: pinT0, CreatedAt: pinT0, UpdatedAt: pinT0},
	} {
		if err := s.DB.Create(row).Error; err != nil {
			t.Fatal(err)
		}
	}
	st := wf.ExperimentState{ProjectID: "prj_p", ExperimentID: "exp_p", Status: gates.Planned, Artifacts: map[string]wf.ArtifactRef{},
		Reviews: map[string]wf.ReviewState{}}
	tc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_p"), "", wf.StateQuery).Return(queriedState{st}, nil)
	pinJSON(t, "status with sandbox and plan", invokeRaw(t, s, pinAgent, "workflow.status_and_next", `{"project_id":"prj_p","experiment_id":"exp_p"}`), pinStatusPlan)
}

func TestRespShape_ConsolidationGet(t *testing.T) {
	s := newTestService(t)
	s.DB = modelstest.SQLite(t)
	tc := &mocks.Client{}
	s.Temporal = tc
	open := "prj_c"
	corpus := `[{"experiment_id":"exp_c1","name":"one","intent":"i","status":"complete","conclusion":"it held","base_sha":"c0ffee"},` +
		`{"experiment_id":"exp_c2","name":"two","intent":"j","status":"failed","conclusion":"","base_sha":"c0ffee"}]`
	for _, row := range []any{&models.Project{ID: "prj_c", Name: "cons", CreatedBy: "op", CreatedAt: pinT0, UpdatedAt: pinT0},
		&models.Reflection{ID: "rfl_c", ProjectID: "prj_c", OpenProject: &open, Status: string(rg.Consolidating), Title: "wave",
			LensesJSON: "[]", CorpusJSON: corpus, CreatedAt: pinT0, UpdatedAt: pinT0},
		&models.ExperimentCode{ExperimentID: "exp_c1", ProjectID: "prj_c", Branch: "work/one", BaseSHA: "c0ffee", BaseSource: "evidence", UpdatedAt: pinT0},
		&models.ConsolidationProposal{ID: "cp_1", ProjectID: "prj_c", ReflectionID: "rfl_c", Revision: 1, BaseSHA: "c0ffee", ProposalSHA: "beef",
			Summary: "sum", ValidationJSON: "{}", DecisionsJSON: `[{"experiment_id":"exp_c1","disposition":"adapted","integration_kind":"merge","source_sha":"abc1"}]`,
			CreatedBy: "a", CreatedAt: pinT0},
	} {
		if err := s.DB.Create(row).Error; err != nil {
			t.Fatal(err)
		}
	}
	rst := wf.ReflectionState{ProjectID: "prj_c", ReflectionID: "rfl_c", Status: rg.Consolidating, Attempt: 1, ProposalRevision: 1, Lenses: rg.CoreLenses[:1]}
	tc.On("QueryWorkflow", mock.Anything, wf.ReflectionWorkflowID("rfl_c"), "", wf.StateQuery).Return(queriedState{rst}, nil)
	pinJSON(t, "consolidation.get", invokeRaw(t, s, pinAgent, "consolidation.get", `{"project_id":"prj_c","reflection_id":"rfl_c"}`), pinConsolidationGet)
}

const (
	pinStatusPlan       = `{"context":{"artifacts":[{"artifact_id":"art_p","attempt_index":0,"created_at":"T","path":"plan.md","problems":["no sections","no TLDR"],"role":"plan","sha256":"794ea10c0b2b68d4ad9dd504b914ccd09aafdd975af76f94192ecffa051ebc0b","size_bytes":16,"target_id":"exp_p","target_type":"experiment","title":"","uploaded":true,"uploaded_at":"T","valid":false}],"code":{"base_sha":null,"branch":null,"head_sha":null},"experiment":{"attempt_index":0,"current_gate":"","experiment_id":"exp_p","intent":"","name":"p","next_action":"","status":"planned"},"plan":{"artifact_id":"art_p","content":"# Plan\nthe plan\n"},"report":null},"project":{"id":"prj_p","name":"plan"},"sandbox":{"active":true,"expires_at":"T","sandbox_uid":"sbx_p","ssh_host":"h","ssh_port":22,"ssh_user":"u","status":"running","workdir":"/w"},"scope":"experiment","workflow":{"allowed_actions":["artifact.submit","experiment.transition","workflow.status_and_next","abandon","mark_failed"],"allowed_transitions":["abandon","mark_failed"],"artifact_guidance":{"checks":["markdown with the sections \"## Hypothesis\", \"## Method\", \"## Success criteria\", \"## Risks\", each with a non-empty body","no line left containing TODO: (replace every TODO: line of the template)","at most 16384 bytes"],"guidance":"Write the plan with every section filled in, then artifact.submit it with role plan and upload the bytes. The check wants: markdown with the sections \"## Hypothesis\", \"## Method\", \"## Success criteria\", \"## Risks\", each with a non-empty body; no line left containing TODO: (replace every TODO: line of the template); at most 16384 bytes.","max_bytes":16384,"path":"experiments/p/plan.md","required_sections":["Hypothesis","Method","Success criteria","Risks"],"role":"plan","target_type":"experiment","template":"# Plan\n\n## Hypothesis\nTODO: the claim this experiment tests\n\n## Method\nTODO: what you will run, on what data\n\n## Success criteria\nTODO: the measurable outcome that supports or refutes the hypothesis\n\n## Risks\nTODO: what could invalidate the result\n"},"attempt_index":0,"blocked_actions":[{"action":"submit_design","reason":"plan_required"}],"current_gate":"plan_required","live_experiments":[{"attempt_index":0,"current_gate":"","experiment_id":"exp_p","intent":"","name":"p","next_action":"","status":"planned"}],"missing_evidence":["plan"],"next_action":"write_and_submit_plan","revision_context":null,"status":"planned"}}`
	pinConsolidationGet = `{"central":{"ref":"db:research_central_refs/prj_c","sha":"0000000000000000000000000000000000000000"},"packet":{"experiments":[{"base_sha":"c0ffee","base_source":"evidence","branch":"work/one","central_sha_at_snapshot":"c0ffee","decision":{"experiment_id":"exp_c1","disposition":"adapted","integration_kind":"merge","source_sha":"abc1"},"experiment_id":"exp_c1","head_sha":null,"head_source":null,"name":"one","result_artifact_id":"","result_summary":"it held","status":"complete"},{"base_sha":null,"branch":null,"central_sha_at_snapshot":"c0ffee","decision":null,"experiment_id":"exp_c2","head_sha":null,"name":"two","result_artifact_id":"","result_summary":"","status":"failed"}],"immutable":true,"proposal_coverage":{"covered":1,"missing":["exp_c2"]}},"prior_consolidation_review_feedback":null,"proposals":[{"base_sha":"c0ffee","created_at":"T","decisions":[{"experiment_id":"exp_c1","disposition":"adapted","integration_kind":"merge","source_sha":"abc1"}],"proposal_id":"cp_1","proposal_revision":1,"proposal_sha":"beef","summary":"sum"}],"reflection":{"attempt_index":1,"central_advance":null,"current_gate":"consolidation_proposal_required","next_action":"submit_consolidation_proposal","past_advances":[],"project_id":"prj_c","proposal_revision":1,"published":null,"reflection_id":"rfl_c","revision_context":null,"status":"consolidating","title":"wave"},"roster":[{"charter":"Find what worked across the corpus and how to push it further: the results worth building on and the next step that would extend them.","core":true,"covered":false,"id":"amplify","path":"reflections/rfl_c/lenses/amplify.md","title":"Amplify","why_distinct":"Looks only at success and its leverage."}],"rules":{"code_carrying":"used_as_is and adapted need source_sha and an integration_kind other than none; superseded needs superseded_by","dispositions":["used_as_is","adapted","reviewed_not_used","superseded"],"integration_kinds":["merge","fast_forward","cherry_pick","rewrite","none"]},"synthesis":{}}`
)
