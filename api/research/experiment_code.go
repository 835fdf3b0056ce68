package research

import (
	"context"
	"maps"

	models "github.com/gatehouse/gatehouse/models/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// objectIDPattern is a git object id: abbreviated lowercase hex, or a full
// 40- or 64-digit id in either case (models.ParseObjectID is the authority).
const objectIDPattern = "^([0-9a-f]{7,64}|[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$"

// evidenceSchema describes experiment.transition's evidence: free-form,
// with the code-state keys spelled out.
var evidenceSchema = map[string]any{"type": "object",
	"description": "evidence: reason (retry_running), conclusion (complete); the experiment's code state: branch (start_running, submit_results, complete), " +
		"base_sha (start_running; default: the project's central ref), head_sha (submit_results, complete; default: the branch tip in the central repository when configured)",
	"properties": map[string]any{
		"branch":   map[string]any{"type": "string", "minLength": 1, "maxLength": models.MaxBranchLen, "description": "the git branch holding the experiment's code"},
		"base_sha": map[string]any{"type": "string", "pattern": objectIDPattern, "description": "the commit the experiment started from"},
		"head_sha": map[string]any{"type": "string", "pattern": objectIDPattern, "description": "the commit the results came from"},
	}}

// centralRepo is what git-backed central refs add: the branches and commits
// of the central repository.
type centralRepo interface {
	BranchHead(ctx context.Context, branch string) (string, bool, error)
	ResolveCommit(ctx context.Context, id string) (string, bool, error)
}

// experimentCode reads the code state a transition reports in its evidence
// (branch, base_sha, head_sha), checks it, and fills the defaults: the base
// is the project's central ref at start_running; the head is the branch's
// tip in the central repository at submit_results (at complete, the head
// recorded at submit_results is kept). It returns nil when the transition
// records no code state, and the evidence for the workflow, carrying the
// resolved values so the update's history shows them.
func (s *Service) experimentCode(ctx context.Context, e models.Experiment, transition string, ev map[string]any) (*models.CodeUpdate, map[string]any, error) {
	m, ok := gates.MoveOf(transition)
	if !ok {
		return nil, ev, nil // the workflow's validator names the unknown transition
	}
	atBase := m.Name == gates.TStartRunning
	atHead := m.Name == gates.TSubmitResults || m.Name == gates.TComplete
	branch, base, head, err := codeEvidence(ev)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case base != "" && !atBase:
		return nil, nil, invalid("/evidence/base_sha", "base_sha is recorded at start_running, not at "+m.Name)
	case head != "" && !atHead:
		return nil, nil, invalid("/evidence/head_sha", "head_sha is recorded at submit_results or complete, not at "+m.Name)
	case branch != "" && !atBase && !atHead:
		return nil, nil, invalid("/evidence/branch", "branch is recorded at start_running, submit_results or complete, not at "+m.Name)
	case !atBase && !atHead:
		return nil, ev, nil
	}
	cur, _, err := models.ExperimentCodeOf(ctx, s.DB, e.ID)
	if err != nil {
		return nil, nil, err
	}
	if err := models.CheckBranch(cur, branch); err != nil {
		return nil, nil, err
	}
	u, err := s.resolveCode(ctx, e, cur, m.Name, branch, base, head)
	if err != nil {
		return nil, nil, err
	}
	out := maps.Clone(ev)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range map[string]string{"branch": u.Branch, "base_sha": u.BaseSHA, "head_sha": u.HeadSHA} {
		if v != "" {
			out[k] = v
		}
	}
	return u, out, nil
}

// resolveCode fills what the evidence of move left out: the conventional
// branch experiments/<name> when the central repository has it, the base
// from the central ref (start_running), the head from the branch's tip
// (submit_results; complete keeps a head already recorded).
func (s *Service) resolveCode(ctx context.Context, e models.Experiment, cur models.ExperimentCode, move, branch, base, head string) (*models.CodeUpdate, error) {
	repo, _ := s.central().(centralRepo)
	u := &models.CodeUpdate{ExperimentID: e.ID, ProjectID: e.ProjectID, Branch: branch}
	if u.Branch == "" && cur.Branch == "" && repo != nil {
		if _, ok, err := repo.BranchHead(ctx, "experiments/"+e.Name); err != nil {
			return nil, err
		} else if ok {
			u.Branch = "experiments/" + e.Name
		}
	}
	var err error
	if move == gates.TStartRunning {
		if u.BaseSHA, u.BaseSource, err = s.codeSHA(ctx, repo, base); err != nil {
			return nil, err
		}
		if u.BaseSHA == "" {
			if u.BaseSHA, err = s.central().Read(ctx, e.ProjectID); err != nil {
				return nil, err
			}
			u.BaseSource = models.ShaFromCentral
		}
		return u, nil
	}
	if u.HeadSHA, u.HeadSource, err = s.codeSHA(ctx, repo, head); err != nil || u.HeadSHA != "" || repo == nil {
		return u, err
	}
	onBranch := u.Branch
	if onBranch == "" {
		onBranch = cur.Branch
	}
	if (move == gates.TComplete && cur.HeadSHA != "") || onBranch == "" {
		return u, nil
	}
	tip, ok, err := repo.BranchHead(ctx, onBranch)
	if ok {
		u.HeadSHA, u.HeadSource = tip, models.ShaFromBranch
	}
	return u, err
}

// codeEvidence parses the code-state keys of a transition's evidence.
func codeEvidence(ev map[string]any) (branch, base, head string, err error) {
	field := func(key string) (string, error) {
		v, ok := ev[key]
		if !ok || v == nil {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", invalid("/evidence/"+key, key+" must be a string")
		}
		return s, nil
	}
	if branch, err = field("branch"); err != nil {
		return
	}
	if branch != "" {
		if branch, err = models.ParseBranch(branch); err != nil {
			return "", "", "", invalid("/evidence/branch", err.Error())
		}
	}
	for _, f := range []struct {
		key string
		to  *string
	}{{"base_sha", &base}, {"head_sha", &head}} {
		if *f.to, err = field(f.key); err != nil {
			return
		}
		if *f.to != "" {
			if *f.to, err = models.ParseObjectID(*f.to); err != nil {
				return "", "", "", invalid("/evidence/"+f.key, err.Error())
			}
		}
	}
	return branch, base, head, nil
}

// codeSHA returns a given commit id as recorded: expanded to the full id
// when the central repository has the commit.
func (s *Service) codeSHA(ctx context.Context, repo centralRepo, id string) (string, string, error) {
	if id == "" {
		return "", "", nil
	}
	if repo != nil {
		full, ok, err := repo.ResolveCommit(ctx, id)
		if err != nil {
			return "", "", err
		}
		if ok {
			id = full
		}
	}
	return id, models.ShaFromEvidence, nil
}

// codeView shows an experiment's code state; unrecorded values are null.
func codeView(c models.ExperimentCode, ok bool) codeViewResp {
	null := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	if !ok {
		return codeViewResp{}
	}
	return codeViewResp{Branch: null(c.Branch), BaseSHA: null(c.BaseSHA), BaseSource: ptr(null(c.BaseSource)),
		HeadSHA: null(c.HeadSHA), HeadSource: ptr(null(c.HeadSource))}
}
