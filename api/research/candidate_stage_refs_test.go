package research

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

func hex64(c string) string { return strings.Repeat(c, 64) }

// TestCandidateStage_ReferencesMustExistAndMatchTheirDigests: a stage names
// evidence of this project whose bytes landed and whose digest matches; a
// refusal names the field and stages nothing.
func TestCandidateStage_ReferencesMustExistAndMatchTheirDigests(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s := newTestService(t)
		s.DB = db
		now := time.Now().UTC()
		for _, row := range []any{
			&models.Project{ID: "prj_s", Name: "stage", CreatedBy: "op"},
			&models.Project{ID: "prj_x", Name: "other", CreatedBy: "op"},
			&models.Candidate{ID: "cand_s", ProjectID: "prj_s", IdempotencyKey: "k", RequestHash: "h", Name: "c", SourceKind: "artifact",
				SourceRef: "art_ok", MetricsJSON: "{}", PrimaryMetric: "m", ValidationSummary: "v"},
			&models.Artifact{ID: "art_ok", ProjectID: "prj_s", TargetType: "experiment", TargetID: "e", Role: "result", Path: "r",
				UploadTokenHash: "t1", SHA256: hex64("a"), UploadedAt: &now},
			&models.Artifact{ID: "art_wait", ProjectID: "prj_s", TargetType: "experiment", TargetID: "e", Role: "result", Path: "r", UploadTokenHash: "t2"},
			&models.Artifact{ID: "art_x", ProjectID: "prj_x", TargetType: "experiment", TargetID: "e", Role: "result", Path: "r",
				UploadTokenHash: "t3", SHA256: hex64("b"), UploadedAt: &now},
			&models.StorageObject{ID: "obj_ok", ProjectID: "prj_s", Name: "m", Version: 1, Kind: "model", Path: "m", SHA256: hex64("c"), Status: models.StorageAvailable, BlobKey: "b1"},
			&models.StorageObject{ID: "obj_up", ProjectID: "prj_s", Name: "m", Version: 2, Kind: "model", Path: "m", SHA256: hex64("d"), Status: models.StorageUploading, BlobKey: "b2"},
		} {
			if err := db.Create(row).Error; err != nil {
				t.Fatal(err)
			}
		}
		agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
		stage := func(kind, ref, sha string) *ToolError {
			args := map[string]any{"project_id": "prj_s", "candidate_id": "cand_s", "stage_kind": kind, "stage_ref": ref}
			if sha != "" {
				args["content_sha256"] = sha
			}
			raw, _ := json.Marshal(args)
			_, terr := s.Invoke(context.Background(), agent, "candidate.stage", raw)
			return terr
		}
		for _, c := range []struct {
			kind, ref, sha, code, pointer string
		}{
			{"artifact", "art_missing", "", "not_found", "/stage_ref"},
			{"artifact", "art_x", "", "not_found", "/stage_ref"},
			{"artifact", "art_wait", "", "invalid_input", "/stage_ref"},
			{"artifact", "art_ok", hex64("f"), "invalid_input", "/content_sha256"},
			{"storage_object", "obj_up", "", "invalid_input", "/stage_ref"},
			{"storage_object", "obj_missing", "", "not_found", "/stage_ref"},
			{"evaluator_receipt", "art_missing", "", "not_found", "/stage_ref"},
		} {
			if terr := stage(c.kind, c.ref, c.sha); terr == nil || terr.Code != c.code || terr.Pointer != c.pointer {
				t.Errorf("%s %s sha %q: %+v, want %s at %s", c.kind, c.ref, c.sha, terr, c.code, c.pointer)
			}
		}
		var n int64
		db.Model(&models.CandidateStage{}).Count(&n)
		if n != 0 {
			t.Fatalf("refused stages wrote %d rows", n)
		}
		if terr := stage("artifact", "art_ok", hex64("a")); terr != nil {
			t.Fatalf("matching artifact: %+v", terr)
		}
		if terr := stage("storage_object", "obj_ok", ""); terr != nil {
			t.Fatalf("available object: %+v", terr)
		}
	})
}

// TestCandidateStage_AReceiptsDigestsAreEachCheckedAgainstTheirOwn: an
// evaluator receipt's manifest_sha256 is the digest of the receipt's
// bytes and its content_sha256 that of the candidate's content it
// evaluated (the source's stored bytes, else the candidate's
// expected_sha256), each checked on its own: the right content with a
// wrong manifest is refused at /manifest_sha256, the receipt's own digest
// given as content at /content_sha256, and both right stage.
func TestCandidateStage_AReceiptsDigestsAreEachCheckedAgainstTheirOwn(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s := newTestService(t)
		s.DB = db
		now := time.Now().UTC()
		for _, row := range []any{
			&models.Project{ID: "prj_r", Name: "receipts", CreatedBy: "op"},
			&models.Artifact{ID: "art_model", ProjectID: "prj_r", TargetType: "experiment", TargetID: "e", Role: "result", Path: "model.bin",
				UploadTokenHash: "tm", SHA256: hex64("e"), UploadedAt: &now},
			&models.Artifact{ID: "art_receipt", ProjectID: "prj_r", TargetType: "experiment", TargetID: "e", Role: "evaluator_receipt", Path: "receipt.json",
				UploadTokenHash: "tr", SHA256: hex64("9"), UploadedAt: &now},
			&models.Candidate{ID: "cand_art", ProjectID: "prj_r", IdempotencyKey: "k1", RequestHash: "h1", Name: "from-artifact", SourceKind: "artifact",
				SourceRef: "art_model", MetricsJSON: "{}", PrimaryMetric: "m", ValidationSummary: "v"},
			&models.Candidate{ID: "cand_ws", ProjectID: "prj_r", IdempotencyKey: "k2", RequestHash: "h2", Name: "declared", SourceKind: "experiment_workspace",
				SourceRef: "exp_1", MetricsJSON: "{}", PrimaryMetric: "m", ValidationSummary: "v", ExpectedSHA256: hex64("7")},
			&models.Candidate{ID: "cand_bare", ProjectID: "prj_r", IdempotencyKey: "k3", RequestHash: "h3", Name: "undeclared", SourceKind: "experiment_workspace",
				SourceRef: "exp_1", MetricsJSON: "{}", PrimaryMetric: "m", ValidationSummary: "v"},
		} {
			if err := db.Create(row).Error; err != nil {
				t.Fatal(err)
			}
		}
		agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
		stage := func(candidate, content, manifest string) *ToolError {
			args := map[string]any{"project_id": "prj_r", "candidate_id": candidate, "stage_kind": "evaluator_receipt", "stage_ref": "art_receipt"}
			if content != "" {
				args["content_sha256"] = content
			}
			if manifest != "" {
				args["manifest_sha256"] = manifest
			}
			raw, _ := json.Marshal(args)
			_, terr := s.Invoke(context.Background(), agent, "candidate.stage", raw)
			return terr
		}
		for _, c := range []struct {
			candidate, content, manifest, pointer string
		}{
			{"cand_art", hex64("e"), hex64("0"), "/manifest_sha256"}, // right content, wrong manifest
			{"cand_art", hex64("9"), hex64("9"), "/content_sha256"},  // the receipt's digest is not the content's
			{"cand_ws", hex64("e"), hex64("9"), "/content_sha256"},   // not what the candidate declared
			{"cand_bare", hex64("e"), hex64("9"), "/content_sha256"}, // nothing stored to check against
		} {
			if terr := stage(c.candidate, c.content, c.manifest); terr == nil || terr.Code != CodeInvalidInput || terr.Pointer != c.pointer {
				t.Errorf("%s content %.4s… manifest %.4s…: %+v, want invalid_input at %s", c.candidate, c.content, c.manifest, terr, c.pointer)
			}
		}
		var n int64
		db.Model(&models.CandidateStage{}).Count(&n)
		if n != 0 {
			t.Fatalf("refused stages wrote %d rows", n)
		}
		for _, c := range []struct{ candidate, content, manifest string }{
			{"cand_art", hex64("e"), hex64("9")}, {"cand_ws", hex64("7"), hex64("9")}, {"cand_bare", "", hex64("9")},
		} {
			if terr := stage(c.candidate, c.content, c.manifest); terr != nil {
				t.Errorf("%s with matching digests: %+v", c.candidate, terr)
			}
		}
	})
}
