package research

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"time"

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
	return feedHandleAnswer{Handle: h.Handle, Role: h.Role, Bio: h.Bio, Created: created}, nil
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
	out.Replayed = &replayed
	return feedPostAnswer{Post: out}, nil
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
	rows := make([]postJSON, 0, len(ps))
	for _, p := range ps {
		rows = append(rows, postView(p))
	}
	out := feedListAnswer{Posts: rows, Limit: in.Limit}
	if next > 0 {
		out.NextBeforeSeq = next
	}
	return out, nil
}

func postView(p models.FeedPost) postJSON {
	var atts []any
	_ = jsonUnmarshal(p.AttachmentsJSON, &atts)
	if atts == nil {
		atts = []any{}
	}
	return postJSON{ID: p.ID, Seq: p.Seq, Handle: p.Handle, Kind: p.Kind, Text: p.Text, Attachments: atts,
		Thread: p.Thread, InReplyTo: p.InReplyTo, QuoteOf: p.QuoteOf, CreatedAt: p.CreatedAt}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// The feed tools' answers. Fields are in the order of their JSON keys, as
// the maps they replaced encoded them.
type (
	// feedHandleAnswer is feed.register's answer.
	feedHandleAnswer struct {
		Bio     string `json:"bio"`
		Created bool   `json:"created"`
		Handle  string `json:"handle"`
		Role    string `json:"role"`
	}
	// postJSON is a feed post as the tools show it.
	postJSON struct {
		Attachments []any     `json:"attachments"`
		CreatedAt   time.Time `json:"created_at"`
		Handle      string    `json:"handle"`
		InReplyTo   string    `json:"in_reply_to"`
		Kind        string    `json:"kind"`
		ID          string    `json:"post_id"`
		QuoteOf     string    `json:"quote_of"`
		// Replayed is set only in feed.post's answer.
		Replayed *bool  `json:"replayed,omitempty"`
		Seq      int64  `json:"seq"`
		Text     string `json:"text"`
		Thread   string `json:"thread"`
	}
	// feedPostAnswer is feed.post's answer.
	feedPostAnswer struct {
		Post postJSON `json:"post"`
	}
	// feedListAnswer is feed.list's answer; next_before_seq is absent on
	// the last page.
	feedListAnswer struct {
		Limit         int        `json:"limit"`
		NextBeforeSeq int64      `json:"next_before_seq,omitempty"`
		Posts         []postJSON `json:"posts"`
	}
)
