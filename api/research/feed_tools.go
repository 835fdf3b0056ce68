package research

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"

	models "github.com/gatehouse/gatehouse/models/research"
)

var feedHandle = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)

type feedArgs struct {
	ProjectID      string            `json:"project_id"`
	Handle         string            `json:"handle"`
	Role           string            `json:"role"`
	Bio            string            `json:"bio"`
	NewVoice       bool              `json:"new_voice"`
	SessionID      string            `json:"session_id"`
	Text           string            `json:"text"`
	Kind           string            `json:"kind"`
	Attachments    []json.RawMessage `json:"attachments"`
	Thread         string            `json:"thread"`
	InReplyTo      string            `json:"in_reply_to"`
	QuoteOf        string            `json:"quote_of"`
	IdempotencyKey string            `json:"idempotency_key"`
	Limit          int               `json:"limit"`
	BeforeSeq      int64             `json:"before_seq"`
}

func feedRegister(ctx context.Context, s *Service, c *Call) (any, error) {
	var in feedArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	if !feedHandle.MatchString(in.Handle) {
		return nil, invalid("/handle", "handle must be lowercase letters, digits and . _ - (1–64)")
	}
	if in.Role == "" {
		in.Role = "main"
	}
	h, created, err := models.RegisterHandle(ctx, s.DB, models.FeedHandle{ProjectID: in.ProjectID, Handle: in.Handle, Role: in.Role, Bio: in.Bio, SessionID: in.SessionID}, in.NewVoice)
	if err != nil {
		return nil, err
	}
	return map[string]any{"handle": h.Handle, "role": h.Role, "bio": h.Bio, "created": created}, nil
}

func feedPost(ctx context.Context, s *Service, c *Call) (any, error) {
	var in feedArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	h, err := models.FeedHandleOf(ctx, s.DB, in.ProjectID, in.Handle)
	if err != nil {
		return nil, toolErr(CodeNotFound, "/handle", "handle %s is not registered; call feed.register first", in.Handle)
	}
	if in.Kind == "" {
		in.Kind = "status"
	}
	for i, a := range in.Attachments {
		var v any
		_ = json.Unmarshal(a, &v)
		switch x := v.(type) {
		case string:
			if x == "" || len(x) > 1000 {
				return nil, invalid("/attachments/"+itoa(i), "a string attachment is 1–1000 characters")
			}
		case map[string]any:
			if _, ok := x["type"].(string); !ok || len(a) > 2000 {
				return nil, invalid("/attachments/"+itoa(i), "an object attachment needs a string type and stays under 2000 bytes")
			}
		default:
			return nil, invalid("/attachments/"+itoa(i), "an attachment is a string or an object")
		}
	}
	thread := in.Thread
	if in.InReplyTo != "" {
		parent, err := models.GetPost(ctx, s.DB, in.ProjectID, in.InReplyTo, "/in_reply_to")
		if err != nil {
			return nil, err
		}
		if thread != "" && thread != parent.Thread {
			return nil, invalid("/thread", "in_reply_to belongs to thread "+parent.Thread)
		}
		thread = parent.Thread
	} else if thread != "" {
		root, err := models.GetPost(ctx, s.DB, in.ProjectID, thread, "/thread")
		if err != nil {
			return nil, err
		}
		thread = root.Thread
	}
	if in.QuoteOf != "" {
		if _, err := models.GetPost(ctx, s.DB, in.ProjectID, in.QuoteOf, "/quote_of"); err != nil {
			return nil, err
		}
	}
	atts, _ := json.Marshal(in.Attachments)
	if in.Attachments == nil {
		atts = []byte("[]")
	}
	p := models.FeedPost{ID: models.NewID("fp_"), ProjectID: in.ProjectID, Handle: h.Handle, Kind: in.Kind, Text: in.Text,
		AttachmentsJSON: string(atts), Thread: thread, InReplyTo: in.InReplyTo, QuoteOf: in.QuoteOf}
	if in.IdempotencyKey != "" {
		k := in.IdempotencyKey
		sum := sha256.Sum256(c.Args)
		p.IdempotencyKey, p.RequestHash = &k, hex.EncodeToString(sum[:])
	}
	got, replayed, err := models.AppendPost(ctx, s.DB, p)
	if err != nil {
		return nil, err
	}
	out := postView(got)
	out["replayed"] = replayed
	return map[string]any{"post": out}, nil
}

func feedList(ctx context.Context, s *Service, c *Call) (any, error) {
	var in feedArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	if in.Limit == 0 {
		in.Limit = 30
	}
	ps, next, err := models.ListPosts(ctx, s.DB, in.ProjectID, in.Limit, in.BeforeSeq)
	if err != nil {
		return nil, err
	}
	rows := make([]map[string]any, 0, len(ps))
	for _, p := range ps {
		rows = append(rows, postView(p))
	}
	out := map[string]any{"posts": rows, "limit": in.Limit}
	if next > 0 {
		out["next_before_seq"] = next
	}
	return out, nil
}

func postView(p models.FeedPost) map[string]any {
	var atts []any
	_ = jsonUnmarshal(p.AttachmentsJSON, &atts)
	if atts == nil {
		atts = []any{}
	}
	return map[string]any{"post_id": p.ID, "seq": p.Seq, "handle": p.Handle, "kind": p.Kind, "text": p.Text, "attachments": atts,
		"thread": p.Thread, "in_reply_to": p.InReplyTo, "quote_of": p.QuoteOf, "created_at": p.CreatedAt}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
