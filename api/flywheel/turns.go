package flywheel

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/contracts"
	models "github.com/gatehouse/gatehouse/models/flywheel"
)

// wireTurn decodes a turn that already passed the schema. JSON-valued
// fields stay raw so they are stored exactly as received.
type wireTurn struct {
	TurnID                string          `json:"turn_id"`
	TaskID                *string         `json:"task_id"`
	ConversationID        *string         `json:"conversation_id"`
	TurnIndex             *json.Number    `json:"turn_index"`
	InputText             *string         `json:"input_text"`
	FinalText             *string         `json:"final_text"`
	ToolCalls             json.RawMessage `json:"tool_calls"`
	ToolCallsOmittedCount json.Number     `json:"tool_calls_omitted_count"`
	AgentFingerprint      json.RawMessage `json:"agent_fingerprint"`
	OccurredAt            *string         `json:"occurred_at"`
}

type wireBatch struct {
	AgentID string     `json:"agent_id"`
	Turns   []wireTurn `json:"turns"`
}

// rawBatch keeps each turn's bytes, for its digest.
type rawBatch struct {
	Turns []json.RawMessage `json:"turns"`
}

// validate answers 400 for malformed JSON and 422 listing each violation;
// it returns false when it has answered.
func validate(c *gin.Context, s *contracts.Schema, body []byte) bool {
	violations, err := s.ValidateJSON(body)
	if errors.Is(err, contracts.ErrMalformedJSON) {
		rest.Abort(c, http.StatusBadRequest, "malformed_json", "body is not valid JSON: "+err.Error())
		return false
	}
	if err != nil {
		rest.Abort(c, http.StatusBadRequest, "malformed_json", err.Error())
		return false
	}
	if len(violations) > 0 {
		rest.Abort(c, http.StatusUnprocessableEntity, "schema_violation",
			"body violates the flywheel/1 contract ("+strconv.Itoa(len(violations))+" violation(s))", violations)
		return false
	}
	return true
}

// unrepresentable answers 422 for a value the schema admits but storage
// cannot hold (an integer beyond 64 bits).
func unrepresentable(c *gin.Context, path string) {
	rest.Abort(c, http.StatusUnprocessableEntity, "schema_violation", "value out of the supported range",
		[]contracts.Violation{{Path: path, Message: "integer does not fit in 64 bits"}})
}

// Turns handles POST /flywheel/turns: validate the whole batch against
// ProductionTurnBatch, then store it in one transaction, idempotently per
// (owner, agent_id, turn_id), the owner being the calling key. A turn id
// reused for a different body answers 409 with both digests and stores
// nothing.
func (h *Handler) Turns(c *gin.Context) {
	body, ok := rest.ReadBody(c)
	if !ok || !validate(c, h.schemas.ProductionTurnBatch, body) {
		return
	}
	var b wireBatch
	var raw rawBatch
	if err := json.Unmarshal(body, &b); err != nil || json.Unmarshal(body, &raw) != nil || len(raw.Turns) != len(b.Turns) {
		rest.Abort(c, http.StatusUnprocessableEntity, "schema_violation", "body could not be decoded")
		return
	}
	p, _ := rest.PrincipalOf(c)
	rows := make([]models.Turn, 0, len(b.Turns))
	var refused unstorable
	for i, t := range b.Turns {
		row, u := h.turnRow(p.CredentialID, b.AgentID, i, t, raw.Turns[i])
		if len(u) > 0 {
			refused = append(refused, u...)
			continue
		}
		rows = append(rows, row)
	}
	accepted, dups := 0, 0
	var err error
	if len(rows) > 0 {
		accepted, dups, err = models.InsertTurns(c.Request.Context(), h.db, rows)
	}
	var conflict *models.TurnConflictError
	if errors.As(err, &conflict) {
		rest.Abort(c, http.StatusConflict, "turn_id_conflict",
			"a turn_id of this batch is already stored under this key with a different body; nothing was stored", conflict.Conflicts)
		return
	}
	if models.ValueRefused(err) {
		rest.Abort(c, http.StatusUnprocessableEntity, "unstorable_value", "the store refused a value of this batch; nothing was stored")
		return
	}
	if err != nil {
		h.unavailable(c, "store turns", err, "could not store the batch; nothing was stored, retry")
		return
	}
	if len(refused) > 0 {
		// The rest of the batch is stored; only the named turns are not.
		c.AbortWithStatusJSON(http.StatusUnprocessableEntity, gin.H{
			"error": rest.Error{Code: "unstorable_value", Details: []contracts.Violation(refused),
				Message: strconv.Itoa(len(refused)) + " value(s) the schema admits but the store cannot hold; those turns were not stored, the rest were"},
			"accepted": accepted, "duplicates": dups,
		})
		return
	}
	c.JSON(http.StatusAccepted, gin.H{"accepted": accepted, "duplicates": dups})
}

// turnRow is the stored form of turn i, or what of it cannot be stored.
func (h *Handler) turnRow(credentialID, agentID string, i int, t wireTurn, raw json.RawMessage) (models.Turn, unstorable) {
	at := "/turns/" + strconv.Itoa(i)
	row := models.Turn{
		Owner: models.KeyOwner(credentialID), BodySHA256: canonicalSHA256(raw),
		AgentID: agentID, TurnID: t.TurnID, TaskID: t.TaskID, ConversationID: t.ConversationID,
		InputText: t.InputText, FinalText: t.FinalText, ToolCalls: rawOrNil(t.ToolCalls),
		AgentFingerprint: rawOrNil(t.AgentFingerprint), OccurredAt: t.OccurredAt,
		CredentialID: credentialID, ReceivedAt: h.opts.Now().UTC(),
	}
	row.ToolCallLanded = toolCallLanded(row.ToolCalls)
	u := turnUnstorable(at, row)
	n, err := schemaInt(t.ToolCallsOmittedCount)
	if err != nil {
		u = append(u, contracts.Violation{Path: at + "/tool_calls_omitted_count", Message: err.Error()})
	}
	row.ToolCallsOmittedCount = n
	if t.TurnIndex != nil {
		idx, err := schemaInt(*t.TurnIndex)
		if err != nil {
			u = append(u, contracts.Violation{Path: at + "/turn_index", Message: err.Error()})
		}
		row.TurnIndex = &idx
	}
	return row, u
}

// rawOrNil stores JSON null (or an absent field) as SQL NULL and anything
// else byte for byte.
func rawOrNil(raw json.RawMessage) *string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	s := string(raw)
	return &s
}

// rawOrNull is the read side of rawOrNil: NULL reads as JSON null.
func rawOrNull(s *string) json.RawMessage {
	if s == nil {
		return json.RawMessage("null")
	}
	return json.RawMessage(*s)
}

// GetTurn handles GET /operator/v1/turns/:agent_id/:turn_id?owner=.
func (h *Handler) GetTurn(c *gin.Context) {
	t, err := models.GetTurn(c.Request.Context(), h.db, c.Query("owner"), c.Param("agent_id"), c.Param("turn_id"))
	if errors.Is(err, models.ErrNotFound) {
		rest.Abort(c, http.StatusNotFound, "not_found", "no such turn")
		return
	}
	if errors.Is(err, models.ErrAmbiguousTurn) {
		rest.Abort(c, http.StatusConflict, "ambiguous_turn", "several keys stored this agent_id and turn_id: pass ?owner=key:<credential id>")
		return
	}
	if err != nil {
		rest.Unavailable(c, "database unavailable")
		return
	}
	c.JSON(http.StatusOK, gin.H{
		"owner": t.Owner, "body_sha256": t.BodySHA256, "agent_id": t.AgentID, "turn_id": t.TurnID, "task_id": t.TaskID, "conversation_id": t.ConversationID,
		"turn_index": t.TurnIndex, "input_text": t.InputText, "final_text": t.FinalText,
		"tool_calls": rawOrNull(t.ToolCalls), "tool_call_landed": rawOrNull(t.ToolCallLanded), "tool_calls_omitted_count": t.ToolCallsOmittedCount,
		"agent_fingerprint": rawOrNull(t.AgentFingerprint), "occurred_at": t.OccurredAt, "received_at": t.ReceivedAt,
	})
}
