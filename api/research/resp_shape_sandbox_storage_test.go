package research

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
	"go.temporal.io/sdk/mocks"
)

// These tests pin the exact JSON bytes of representative responses of the
// project, status, sandbox, storage and reflection tools, so that moving
// their bodies from maps to typed structs changes no key, no order, no
// null and no []. Random ids, tokens and clock times are normalized.

var (
	pinTime  = regexp.MustCompile(`"\d{4}-\d\d-\d\dT[0-9:.]+(Z|[+-]\d\d:\d\d)"`)
	pinToken = regexp.MustCompile(`\b(obj|su|sd)_[0-9a-zA-Z]+`)
	pinKey   = regexp.MustCompile(`\.(upload|bytes)-[0-9a-f]+`)
)

// pinJSON compares v's JSON, normalized, to want.
func pinJSON(t *testing.T, name string, v any, want string) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got := pinKey.ReplaceAllString(pinToken.ReplaceAllString(pinTime.ReplaceAllString(string(raw), `"T"`), "${1}_X"), ".${1}-X")
	if got != want {
		t.Errorf("%s:\n got %s\nwant %s", name, got, want)
	}
}

// invokeRaw calls tool as p and answers its output as the handler gave it.
func invokeRaw(t *testing.T, s *Service, p platform.Principal, tool, args string) any {
	t.Helper()
	out, terr := s.Invoke(context.Background(), p, tool, json.RawMessage(args))
	if terr != nil {
		t.Fatalf("%s %s: %+v", tool, args, terr)
	}
	return out
}

var (
	pinAgent    = platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	pinOperator = platform.Principal{CredentialID: "op", Role: platform.RoleOperator, AllProjects: true}
	pinT0       = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
)

func TestRespShape_Views(t *testing.T) {
	ended := pinT0.Add(time.Hour)
	pinJSON(t, "sandboxView active", sandboxView(models.Sandbox{UID: "sbx_1", ProjectID: "prj_1", ExperimentID: "exp_1", Provider: "local",
		InstanceType: "local-small", Region: "here", CPU: 1.5, MemoryMB: 512, GPU: 0, KeyFP: "SHA256:x", Status: models.SandboxRunning,
		SSHHost: "127.0.0.1", SSHPort: 2222, SSHUser: "agent", Workdir: "/w", ExpiresAt: pinT0, CreatedAt: pinT0}),
		`{"active":true,"cpu":1.5,"created_at":"T","ended_at":null,"experiment_id":"exp_1","expires_at":"T","gpu":0,"instance_type":"local-small","key_fingerprint":"SHA256:x","memory_mb":512,"project_id":"prj_1","provider":"local","region":"here","sandbox_id":"sbx_1","sandbox_uid":"sbx_1","ssh_command":"ssh -p 2222 agent@127.0.0.1","ssh_host":"127.0.0.1","ssh_port":2222,"ssh_user":"agent","status":"running","workdir":"/w","workflow_id":"sandbox/sbx_1"}`)
	pinJSON(t, "sandboxView ended", sandboxView(models.Sandbox{UID: "sbx_2", ProjectID: "prj_1", Provider: "local", Status: models.SandboxFailed,
		SSHPort: 22, LastError: "boom", ExpiresAt: pinT0, CreatedAt: pinT0, EndedAt: &ended}),
		`{"active":false,"cpu":0,"created_at":"T","ended_at":"T","experiment_id":"","expires_at":"T","gpu":0,"instance_type":"","key_fingerprint":"","last_error":"boom","memory_mb":0,"project_id":"prj_1","provider":"local","region":"","sandbox_id":"sbx_2","sandbox_uid":"sbx_2","ssh_host":"","ssh_port":22,"ssh_user":"","status":"failed","workdir":"","workflow_id":"sandbox/sbx_2"}`)
	pinJSON(t, "sandboxView no endpoint", sandboxView(models.Sandbox{UID: "sbx_3", ProjectID: "prj_1", Status: models.SandboxProvisioning, ExpiresAt: pinT0, CreatedAt: pinT0}),
		`{"active":true,"cpu":0,"created_at":"T","ended_at":null,"experiment_id":"","expires_at":"T","gpu":0,"instance_type":"","key_fingerprint":"","memory_mb":0,"project_id":"prj_1","provider":"","region":"","sandbox_id":"sbx_3","sandbox_uid":"sbx_3","status":"provisioning","workflow_id":"sandbox/sbx_3"}`)
	o := models.StorageObject{ID: "obj_1", Name: "n", Version: 2, Kind: "model", Status: models.StorageAvailable, SHA256: "ab", SizeBytes: 3,
		Path: "p", ContentType: "text/plain", ExpiresAt: &pinT0, CompletedAt: &pinT0, CreatedAt: pinT0}
	pinJSON(t, "objectView compact", objectCompactView(o),
		`{"expires_at":"T","kind":"model","name":"n","object_id":"obj_X","pinned":false,"sha256":"ab","size_bytes":3,"status":"available","version":2}`)
	pinJSON(t, "objectView full", objectView(o),
		`{"completed_at":"T","content_type":"text/plain","created_at":"T","deleted_at":null,"expires_at":"T","kind":"model","name":"n","notes":"","object_id":"obj_X","path":"p","pinned":false,"producing_experiment_id":"","producing_run":"","sha256":"ab","size_bytes":3,"source_uri":"","status":"available","version":2}`)
	o.LastError, o.ExpiresAt, o.Pinned = "bad bytes", nil, true
	pinJSON(t, "objectView last error", objectView(o),
		`{"completed_at":"T","content_type":"text/plain","created_at":"T","deleted_at":null,"expires_at":null,"kind":"model","last_error":"bad bytes","name":"n","notes":"","object_id":"obj_X","path":"p","pinned":true,"producing_experiment_id":"","producing_run":"","sha256":"ab","size_bytes":3,"source_uri":"","status":"available","version":2}`)
	open := "prj_1"
	pinJSON(t, "reflectionSummary", reflectionSummary(models.Reflection{ID: "refl_1", Title: "w", Status: "reflecting", Gate: "g", NextAction: "n",
		Attempt: 1, OpenProject: &open, CreatedAt: pinT0, GraphArtifactID: "art_g"}),
		`{"attempt_index":1,"created_at":"T","current_gate":"g","next_action":"n","open":true,"project_graph_artifact_id":"art_g","published_at":null,"reflection_doc_artifact_id":"","reflection_id":"refl_1","status":"reflecting","title":"w"}`)
}

func TestRespShape_ProjectTools(t *testing.T) {
	s := newTestService(t)
	s.DB = modelstest.SQLite(t)
	for _, row := range []any{&models.Project{ID: "prj_a", Name: "alpha", CreatedBy: "op", CreatedAt: pinT0, UpdatedAt: pinT0},
		&models.Project{ID: "prj_b", Name: "beta", CreatedBy: "op", CreatedAt: pinT0, UpdatedAt: pinT0}} {
		if err := s.DB.Create(row).Error; err != nil {
			t.Fatal(err)
		}
	}
	proj := func(id, name string) string {
		return `{"id":"` + id + `","name":"` + name + `","description":"","human_reviews":"","created_by":"op","created_at":"T","updated_at":"T"}`
	}
	pinJSON(t, "project current (several)", invokeRaw(t, s, pinOperator, "project", `{"action":"current"}`),
		`{"hint":"pass project_id; this credential may use several projects","project":null,"projects":[`+proj("prj_a", "alpha")+`,`+proj("prj_b", "beta")+`]}`)
	pinJSON(t, "project current (named)", invokeRaw(t, s, pinOperator, "project", `{"action":"current","project_id":"prj_b"}`),
		`{"project":`+proj("prj_b", "beta")+`}`)
	pinJSON(t, "project create (existing)", invokeRaw(t, s, pinOperator, "project", `{"action":"create","name":"alpha"}`),
		`{"created":false,"project":`+proj("prj_a", "alpha")+`}`)
	pinJSON(t, "project.list", invokeRaw(t, s, pinOperator, "project.list", `{}`),
		`{"projects":[`+proj("prj_a", "alpha")+`,`+proj("prj_b", "beta")+`]}`)
	pinJSON(t, "project overview (empty)", invokeRaw(t, s, pinOperator, "project", `{"action":"overview","project_id":"prj_a"}`),
		`{"champion_id":"","claims":[],"experiments":[],"experiments_by_status":{},"project":`+proj("prj_a", "alpha")+`}`)
}

func TestRespShape_StatusAndNext(t *testing.T) {
	s := newTestService(t)
	s.DB = modelstest.SQLite(t)
	tc := &mocks.Client{}
	s.Temporal = tc
	for _, row := range []any{&models.Project{ID: "prj_s", Name: "status", CreatedBy: "op", CreatedAt: pinT0, UpdatedAt: pinT0},
		&models.Experiment{ID: "exp_s", ProjectID: "prj_s", Name: "one", Intent: "why", Status: string(gates.DesignReview), CreatedAt: pinT0, UpdatedAt: pinT0}} {
		if err := s.DB.Create(row).Error; err != nil {
			t.Fatal(err)
		}
	}
	pinJSON(t, "status project scope", invokeRaw(t, s, pinAgent, "workflow.status_and_next", `{"project_id":"prj_s"}`), pinStatusProject)
	st := wf.ExperimentState{ProjectID: "prj_s", ExperimentID: "exp_s", Status: gates.DesignReview, Artifacts: map[string]wf.ArtifactRef{},
		Reviews: map[string]wf.ReviewState{"design": {Status: wf.ReviewStatusNone, ExpiredRequestID: "rr_x"}}}
	tc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_s"), "", wf.StateQuery).Return(queriedState{st}, nil)
	pinJSON(t, "status experiment scope", invokeRaw(t, s, pinAgent, "workflow.status_and_next", `{"project_id":"prj_s","experiment_id":"exp_s"}`), pinStatusExperiment)

	// An open wave: the project scope is the wave's.
	open := "prj_s"
	if err := s.DB.Create(&models.Reflection{ID: "rfl_s", ProjectID: "prj_s", OpenProject: &open, Status: string(rg.Reflecting), Title: "wave",
		LensesJSON: "[]", CorpusJSON: "[]", CreatedAt: pinT0, UpdatedAt: pinT0}).Error; err != nil {
		t.Fatal(err)
	}
	rst := wf.ReflectionState{ProjectID: "prj_s", ReflectionID: "rfl_s", Status: rg.Reflecting, Lenses: rg.CoreLenses}
	tc.On("QueryWorkflow", mock.Anything, wf.ReflectionWorkflowID("rfl_s"), "", wf.StateQuery).Return(queriedState{rst}, nil)
	pinJSON(t, "status open wave", invokeRaw(t, s, pinAgent, "workflow.status_and_next", `{"project_id":"prj_s"}`), pinStatusWave)
	pinJSON(t, "reflection.get", invokeRaw(t, s, pinAgent, "reflection.get", `{"project_id":"prj_s"}`), pinReflectionGet)
	pinJSON(t, "reflection.list", invokeRaw(t, s, pinOperator, "reflection.list", `{"project_id":"prj_s"}`), pinReflectionList)
}

func TestRespShape_SandboxTools(t *testing.T) {
	s, _ := kubeService(t)
	pinJSON(t, "sandbox.release none", invokeRaw(t, s, pinAgent, "sandbox.release", `{"project_id":"prj_k"}`),
		`{"pending_release":[],"released":false,"status":"no_active_sandbox"}`)
	pinJSON(t, "sandbox.list none", invokeRaw(t, s, pinAgent, "sandbox.list", `{"project_id":"prj_k"}`), `{"count":0,"sandboxes":[]}`)
	heldLocalSandbox(t, s, "sbx_pin00000001")
	pinJSON(t, "sandbox.get", invokeRaw(t, s, pinAgent, "sandbox.get", `{"project_id":"prj_k"}`), pinSandboxGet)
	pinJSON(t, "sandbox.list", invokeRaw(t, s, pinAgent, "sandbox.list", `{"project_id":"prj_k"}`), pinSandboxList)
	pinJSON(t, "sandbox.runs", invokeRaw(t, s, pinAgent, "sandbox.runs", `{"project_id":"prj_k"}`),
		`{"count":0,"running":0,"runs":[],"sandbox_status":"running","sandbox_uid":"sbx_pin00000001","waited_seconds":0}`)
	pinJSON(t, "sandbox.terminal", invokeRaw(t, s, pinAgent, "sandbox.terminal", `{"project_id":"prj_k"}`),
		`{"as_of":"T","lines":null,"sandbox_uid":"sbx_pin00000001","text":"","truncated":false}`)
	pinJSON(t, "sandbox.release checklist", invokeRaw(t, s, pinAgent, "sandbox.release", `{"project_id":"prj_k"}`), pinSandboxChecklist)
	pinJSON(t, "sandbox.options", invokeRaw(t, s, pinAgent, "sandbox.options", `{"project_id":"prj_k","provider":"local"}`), pinSandboxOptions)
	pinJSON(t, "sandbox.health", invokeRaw(t, s, pinOperator, "sandbox.health", `{"provider":"kubernetes"}`), `{"providers":[{"healthy":true,"provider":"kubernetes"}]}`)
}

func TestRespShape_StorageTools(t *testing.T) {
	s, _ := storageService(t, false)
	do := storageRoutes(s)
	body := []byte("pinned bytes\n")
	sub := invokeRaw(t, s, pinAgent, "storage.submit", `{"project_id":"prj_k","path":"r.txt","kind":"other","sha256":"`+sum(body)+`","size_bytes":13}`)
	pinJSON(t, "storage.submit", sub, pinStorageSubmit)
	raw, _ := json.Marshal(sub)
	var m struct {
		ObjectID string `json:"object_id"`
		Upload   struct {
			URL string `json:"url"`
		} `json:"upload"`
	}
	_ = json.Unmarshal(raw, &m)
	put := invokeRaw(t, s, pinOperator, "storage.put_object", `{"project_id":"prj_k","object_id":"`+m.ObjectID+`"}`)
	pinJSON(t, "storage.put_object", put, pinStoragePut)
	raw, _ = json.Marshal(put)
	_ = json.Unmarshal(raw, &m)
	if code, b := do(http.MethodPut, m.Upload.URL, body); code != http.StatusOK {
		t.Fatalf("upload: %d %s", code, b)
	}
	pinJSON(t, "storage.complete_upload", invokeRaw(t, s, pinOperator, "storage.complete_upload", `{"project_id":"prj_k","object_id":"`+m.ObjectID+`"}`), pinStorageComplete)
	pinJSON(t, "storage.complete_upload replay", invokeRaw(t, s, pinOperator, "storage.complete_upload", `{"project_id":"prj_k","object_id":"`+m.ObjectID+`"}`), pinStorageReplay)
	pinJSON(t, "storage.submit again", invokeRaw(t, s, pinAgent, "storage.submit", `{"project_id":"prj_k","path":"r.txt","kind":"other","sha256":"`+sum(body)+`","size_bytes":13}`), pinStorageAgain)
	pinJSON(t, "storage.fetch", invokeRaw(t, s, pinAgent, "storage.fetch", `{"project_id":"prj_k","path":"out.txt","name":"r.txt"}`), pinStorageFetch)
	pinJSON(t, "storage.object", invokeRaw(t, s, pinAgent, "storage.object", `{"project_id":"prj_k","object_id":"`+m.ObjectID+`","action":"pin"}`), pinStorageObject)
	other := []byte("second\n")
	invokeRaw(t, s, pinAgent, "storage.submit", `{"project_id":"prj_k","path":"s.txt","kind":"dataset","sha256":"`+sum(other)+`","size_bytes":7}`)
	pinJSON(t, "storage.find", invokeRaw(t, s, pinAgent, "storage.find", `{"project_id":"prj_k","limit":1,"compact":true,"include_download":true}`), pinStorageFind)
	pinJSON(t, "storage.find all", invokeRaw(t, s, pinAgent, "storage.find", `{"project_id":"prj_k","name":"r.txt","include_download":true}`), pinStorageFindAll)
}

const (
	pinStatusProject    = `{"context":{"claims":[],"experiments":[{"attempt_index":0,"current_gate":"","experiment_id":"exp_s","intent":"why","name":"one","next_action":"","status":"design_review"}],"latest_reflection":null,"literature_summary":null,"project":{"id":"prj_s","name":"status","description":"","human_reviews":"","created_by":"op","created_at":"T","updated_at":"T"}},"experiment":null,"scope":"project","workflow":{"allowed_actions":["claim.create","experiment.create","workflow.status_and_next"],"blocked_actions":[],"current_gate":"live_experiments","live_experiments":[{"attempt_index":0,"current_gate":"","experiment_id":"exp_s","intent":"why","name":"one","next_action":"","status":"design_review"}],"missing_evidence":[],"next_action":"tend_live_work","revision_context":null}}`
	pinStatusExperiment = `{"context":{"artifacts":[],"code":{"base_sha":null,"branch":null,"head_sha":null},"experiment":{"attempt_index":0,"current_gate":"","experiment_id":"exp_s","intent":"why","name":"one","next_action":"","status":"design_review"},"plan":null,"report":null},"project":{"id":"prj_s","name":"status"},"sandbox":{"active":false},"scope":"experiment","workflow":{"allowed_actions":["review.request","experiment.transition","workflow.status_and_next","abandon","mark_failed"],"allowed_transitions":["abandon","mark_failed"],"attempt_index":0,"blocked_actions":[{"action":"mark_ready_to_run","reason":"design_review"}],"current_gate":"design_review","live_experiments":[{"attempt_index":0,"current_gate":"","experiment_id":"exp_s","intent":"why","name":"one","next_action":"","status":"design_review"}],"missing_evidence":["design_review"],"next_action":"launch_design_reviewer","review_gate":{"expired_request_id":"rr_x","hint":"the last review request expired unanswered; call review.request again","label":"design review","read_only":true,"role":"design_reviewer","skill":"design-review","status":"none","target_id":"exp_s","target_type":"experiment"},"revision_context":null,"status":"design_review"}}`
	pinStatusWave       = `{"context":{"claims":[],"experiments":[{"attempt_index":0,"current_gate":"","experiment_id":"exp_s","intent":"why","name":"one","next_action":"","status":"design_review"}],"latest_reflection":null,"literature_summary":null,"project":{"id":"prj_s","name":"status","description":"","human_reviews":"","created_by":"op","created_at":"T","updated_at":"T"}},"experiment":null,"reflection":{"attempt_index":0,"created_at":"T","current_gate":"","next_action":"","open":true,"project_graph_artifact_id":"","published_at":null,"reflection_doc_artifact_id":"","reflection_id":"rfl_s","status":"reflecting","title":"wave"},"scope":"project","workflow":{"allowed_actions":["reflection.get","artifact.submit","reflection.transition","workflow.status_and_next","abandon"],"allowed_transitions":["abandon"],"artifact_guidance":{"checks":["markdown with the sections \"## TLDR\", \"## Evidence\", \"## Recommendations\", each with a non-empty body","no TODO: left anywhere","at most 16384 bytes"],"guidance":"One subagent per lens writes its lens doc from the lens charter and the corpus (reflection.get), then artifact.submit it with role reflection_lens_doc and the lens_id. The check wants: markdown with the sections \"## TLDR\", \"## Evidence\", \"## Recommendations\", each with a non-empty body; no TODO: left anywhere; at most 16384 bytes.","lens":{"id":"amplify","title":"Amplify","charter":"Find what worked across the corpus and how to push it further: the results worth building on and the next step that would extend them.","why_distinct":"Looks only at success and its leverage.","core":true},"lens_id":"amplify","path":"reflections/rfl_s/lenses/amplify.md","role":"reflection_lens_doc","target_id":"rfl_s","target_type":"reflection","template":"# Lens reflection\n\n## TLDR\nTODO: the lens's finding in two sentences\n\n## Evidence\nTODO: the corpus experiments and what they show through this lens\n\n## Recommendations\nTODO: what the project should do next because of it\n"},"attempt_index":0,"blocked_actions":[{"action":"submit_reflections","reason":"reflection_roster_incomplete"}],"current_gate":"reflection_roster_incomplete","live_experiments":[{"attempt_index":0,"current_gate":"","experiment_id":"exp_s","intent":"why","name":"one","next_action":"","status":"design_review"}],"missing_evidence":["reflection_lens_doc"],"next_action":"fan_out_reflection_subagents","proposal_revision":0,"reflection_id":"rfl_s","revision_context":null,"status":"reflecting"}}`
	pinReflectionGet    = `{"content_included":false,"corpus":[],"coverage":{"covered":0,"next_lens_id":"amplify","total":3},"prior_published":null,"reflection":{"attempt_index":0,"central_advance":null,"current_gate":"reflection_roster_incomplete","next_action":"fan_out_reflection_subagents","past_advances":[],"project_id":"prj_s","proposal_revision":0,"published":null,"reflection_id":"rfl_s","revision_context":null,"status":"reflecting","title":"wave"},"roster":[{"charter":"Find what worked across the corpus and how to push it further: the results worth building on and the next step that would extend them.","core":true,"covered":false,"id":"amplify","path":"reflections/rfl_s/lenses/amplify.md","title":"Amplify","why_distinct":"Looks only at success and its leverage."},{"charter":"Find what failed, misled or wasted effort, and the patterns the project should stop repeating.","core":true,"covered":false,"id":"avoid","path":"reflections/rfl_s/lenses/avoid.md","title":"Avoid","why_distinct":"Looks only at failure and its causes."},{"charter":"Find what is still uncertain, untested or contradictory, and which single experiment would reduce that uncertainty most.","core":true,"covered":false,"id":"entropy","path":"reflections/rfl_s/lenses/entropy.md","title":"Entropy","why_distinct":"Looks at what the corpus does not yet know."}],"synthesis":{}}`
	pinReflectionList   = `{"authority":"gates are mirrored from each wave's workflow","reflections":[{"attempt_index":0,"created_at":"T","current_gate":"","next_action":"","open":true,"project_graph_artifact_id":"","published_at":null,"reflection_doc_artifact_id":"","reflection_id":"rfl_s","status":"reflecting","title":"wave"}]}`
	pinSandboxGet       = `{"sandbox":{"active":true,"cpu":0,"created_at":"T","ended_at":null,"experiment_id":"","expires_at":"T","gpu":0,"instance_type":"local-small","key_fingerprint":"","memory_mb":0,"project_id":"prj_k","provider":"local","region":"","sandbox_id":"sbx_pin00000001","sandbox_uid":"sbx_pin00000001","ssh_command":"ssh -p 2222 @127.0.0.1","ssh_host":"127.0.0.1","ssh_port":2222,"ssh_user":"","status":"running","workdir":"","workflow_id":"sandbox/sbx_pin00000001"}}`
	pinSandboxList      = `{"count":1,"sandboxes":[{"active":true,"cpu":0,"created_at":"T","ended_at":null,"experiment_id":"","expires_at":"T","gpu":0,"instance_type":"local-small","key_fingerprint":"","memory_mb":0,"project_id":"prj_k","provider":"local","region":"","sandbox_id":"sbx_pin00000001","sandbox_uid":"sbx_pin00000001","ssh_command":"ssh -p 2222 @127.0.0.1","ssh_host":"127.0.0.1","ssh_port":2222,"ssh_user":"","status":"running","workdir":"","workflow_id":"sandbox/sbx_pin00000001"}]}`
	pinSandboxChecklist = `{"hint":"Nothing was destroyed. Before releasing, pull the outputs you need (sandbox.pull_outputs), pin storage objects that must outlive their retention (storage.object action pin), and wait for running commands (sandbox.runs with wait_seconds). Then call sandbox.release again with confirm_retained: true; that destroys the working directory.","pending_release":[{"expires_at":"T","running_commands":[],"sandbox_id":"sbx_pin00000001","sandbox_uid":"sbx_pin00000001","status":"running","unpinned_storage":[],"unpulled_outputs":[],"workdir":""}],"released":false,"status":"confirmation_required"}`
	pinSandboxOptions   = `{"count":2,"default_provider":"local","instance_types":[{"provider":"local","instance_type":"local-small","cpu":1,"memory_mb":1024,"gpu":0,"region":"local"},{"provider":"local","instance_type":"local-medium","cpu":2,"memory_mb":4096,"gpu":0,"region":"local"}],"limits":{"extend_max_seconds":1800,"gpus_max":2,"lifetime_max_seconds":86400,"live_sandboxes_max":4,"time_limit_seconds":{"default":3600,"max":86400,"min":60}},"providers":["local","kubernetes"]}`
	pinStorageSubmit    = `{"complete":{"expires_at":"T","method":"POST","url":"http://gatehouse.test/api/storage/c/su_X"},"created":true,"name":"r.txt","note":"the object becomes available only when the uploaded bytes match sha256 and size_bytes; a mismatch is rejected and nothing is kept","object":{"completed_at":null,"content_type":"","created_at":"T","deleted_at":null,"expires_at":null,"kind":"other","name":"r.txt","notes":"","object_id":"obj_X","path":"r.txt","pinned":false,"producing_experiment_id":"","producing_run":"","sha256":"e0997b6447e07ef18b6304a2b88ded9b24106e5bd67b40fabb73e7c1fff37d22","size_bytes":13,"source_uri":"","status":"uploading","version":1},"object_id":"obj_X","run":"curl -sf -T 'r.txt' 'http://gatehouse.test/api/storage/u/su_X' \u0026\u0026 curl -sf -X POST 'http://gatehouse.test/api/storage/c/su_X'","status":"uploading","upload":{"expires_at":"T","method":"PUT","url":"http://gatehouse.test/api/storage/u/su_X"},"upload_required":true,"version":1}`
	pinStoragePut       = `{"complete":{"expires_at":"T","method":"POST","url":"http://gatehouse.test/api/storage/c/su_X"},"note":"the object becomes available only when the uploaded bytes match sha256 and size_bytes; a mismatch is rejected and nothing is kept","object_id":"obj_X","run":"curl -sf -T 'r.txt' 'http://gatehouse.test/api/storage/u/su_X' \u0026\u0026 curl -sf -X POST 'http://gatehouse.test/api/storage/c/su_X'","upload":{"expires_at":"T","method":"PUT","url":"http://gatehouse.test/api/storage/u/su_X"},"upload_required":true}`
	pinStorageComplete  = `{"object":{"completed_at":"T","content_type":"","created_at":"T","deleted_at":null,"expires_at":"T","kind":"other","name":"r.txt","notes":"","object_id":"obj_X","path":"r.txt","pinned":false,"producing_experiment_id":"","producing_run":"","sha256":"e0997b6447e07ef18b6304a2b88ded9b24106e5bd67b40fabb73e7c1fff37d22","size_bytes":13,"source_uri":"","status":"available","version":1},"object_id":"obj_X","status":"available"}`
	pinStorageReplay    = `{"object":{"completed_at":"T","content_type":"","created_at":"T","deleted_at":null,"expires_at":"T","kind":"other","name":"r.txt","notes":"","object_id":"obj_X","path":"r.txt","pinned":false,"producing_experiment_id":"","producing_run":"","sha256":"e0997b6447e07ef18b6304a2b88ded9b24106e5bd67b40fabb73e7c1fff37d22","size_bytes":13,"source_uri":"","status":"available","version":1},"object_id":"obj_X","replayed":true,"status":"available"}`
	pinStorageAgain     = `{"created":false,"name":"r.txt","note":"these bytes are already stored; nothing to upload","object":{"completed_at":"T","content_type":"","created_at":"T","deleted_at":null,"expires_at":"T","kind":"other","name":"r.txt","notes":"","object_id":"obj_X","path":"r.txt","pinned":false,"producing_experiment_id":"","producing_run":"","sha256":"e0997b6447e07ef18b6304a2b88ded9b24106e5bd67b40fabb73e7c1fff37d22","size_bytes":13,"source_uri":"","status":"available","version":1},"object_id":"obj_X","status":"available","upload_required":false,"version":1}`
	pinStorageFetch     = `{"download":{"expires_at":"T","method":"GET","url":"http://gatehouse.test/api/storage/d/sd_X"},"name":"r.txt","object":{"completed_at":"T","content_type":"","created_at":"T","deleted_at":null,"expires_at":"T","kind":"other","name":"r.txt","notes":"","object_id":"obj_X","path":"r.txt","pinned":false,"producing_experiment_id":"","producing_run":"","sha256":"e0997b6447e07ef18b6304a2b88ded9b24106e5bd67b40fabb73e7c1fff37d22","size_bytes":13,"source_uri":"","status":"available","version":1},"object_id":"obj_X","run":"curl -sf -o 'out.txt' 'http://gatehouse.test/api/storage/d/sd_X'","sha256":"e0997b6447e07ef18b6304a2b88ded9b24106e5bd67b40fabb73e7c1fff37d22","size_bytes":13,"version":1}`
	pinStorageObject    = `{"action":"pin","object":{"completed_at":"T","content_type":"","created_at":"T","deleted_at":null,"expires_at":null,"kind":"other","name":"r.txt","notes":"","object_id":"obj_X","path":"r.txt","pinned":true,"producing_experiment_id":"","producing_run":"","sha256":"e0997b6447e07ef18b6304a2b88ded9b24106e5bd67b40fabb73e7c1fff37d22","size_bytes":13,"source_uri":"","status":"available","version":1},"object_id":"obj_X","status":"available"}`
	pinStorageFind      = `{"limit":1,"next_offset":1,"objects":[{"expires_at":null,"kind":"dataset","name":"s.txt","object_id":"obj_X","pinned":false,"sha256":"480c2336b410f1ad5f8bf1b28944490255804b65350c527787e74ebdd511e3a4","size_bytes":7,"status":"uploading","version":1}],"offset":0,"total":2}`
	pinStorageFindAll   = `{"limit":50,"objects":[{"completed_at":"T","content_type":"","created_at":"T","deleted_at":null,"download":{"expires_at":"T","method":"GET","url":"http://gatehouse.test/api/storage/d/sd_X"},"expires_at":null,"kind":"other","name":"r.txt","notes":"","object_id":"obj_X","path":"r.txt","pinned":true,"producing_experiment_id":"","producing_run":"","sha256":"e0997b6447e07ef18b6304a2b88ded9b24106e5bd67b40fabb73e7c1fff37d22","size_bytes":13,"source_uri":"","status":"available","version":1}],"offset":0,"total":1}`
)
