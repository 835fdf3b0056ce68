package platform

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/rest"
	models "github.com/gatehouse/gatehouse/models/platform"
)

// Routes registers the platform endpoints.
func Routes(r *rest.Router, db *gorm.DB, pinger Pinger, checks Dependencies, metrics http.Handler) {
	r.Handle(http.MethodGet, "/healthz", rest.Op{Summary: "Liveness: 200 while the process serves", Tag: "platform",
		Responses: map[int]string{200: "alive"}}, Healthz)
	r.Handle(http.MethodGet, "/readyz", rest.Op{Summary: "Readiness: the database reachable; the body also reports Temporal", Tag: "platform",
		Responses: map[int]string{200: "every required dependency answers (the body names each one's state)", 503: "a required dependency is down"}}, Readyz(checks))
	r.Handle(http.MethodGet, "/metrics", rest.Op{Summary: "Prometheus metrics (gatehouse dev; the api role serves them on GATEHOUSE_METRICS_ADDR instead)", Tag: "platform",
		Responses: map[int]string{200: "text exposition format", 404: "on the api role's public listener: scrape GATEHOUSE_METRICS_ADDR"}}, gin.WrapH(metrics))

	anyone := rest.Require(db, models.RoleAgent, models.RoleOperator)
	both := []string{rest.RoleAgent, rest.RoleOperator}
	r.Handle(http.MethodPost, "/v1/ping", rest.Op{Summary: "Start a ping workflow and answer it (foundation round trip)", Tag: "platform", Auth: both,
		Request: map[string]any{"type": "object", "properties": map[string]any{
			"message": map[string]any{"type": "string", "maxLength": 1024},
			"hold":    map[string]any{"type": "boolean", "description": "start without answering; answer later with /v1/ping/{id}/pong"},
		}},
		Responses: map[int]string{200: "completed", 202: "held, waiting for its pong", 401: "no or bad credential", 503: "Temporal unavailable"}},
		anyone, pinger.Start)
	r.Handle(http.MethodPost, "/v1/ping/:id/pong", rest.Op{Summary: "Answer a held ping and wait for its result", Tag: "platform", Auth: both,
		Responses: map[int]string{200: "completed", 404: "no such waiting ping"}}, anyone, pinger.Pong)

	op := r.Group("/operator/v1", rest.Require(db, models.RoleOperator))
	keys := Keys{DB: db}
	opAuth := []string{rest.RoleOperator}
	op.Handle(http.MethodPost, "/keys", rest.Op{Summary: "Mint an agent key or operator token (plaintext shown once)", Tag: "operator", Auth: opAuth,
		Request: map[string]any{"type": "object", "required": []string{"role", "name"}, "properties": map[string]any{
			"role":         map[string]any{"enum": []string{"agent", "operator"}},
			"name":         map[string]any{"type": "string", "minLength": 1, "maxLength": 200},
			"projects":     map[string]any{"type": []string{"array", "null"}, "items": map[string]any{"type": "string"}},
			"all_projects": map[string]any{"type": "boolean"},
		}},
		Responses: map[int]string{201: "minted", 401: "no or bad credential", 403: "not an operator", 422: "invalid input"}}, keys.Mint)
	op.Handle(http.MethodGet, "/keys", rest.Op{Summary: "List credentials (no plaintext)", Tag: "operator", Auth: opAuth,
		Responses: map[int]string{200: "credentials"}}, keys.List)
	op.Handle(http.MethodDelete, "/keys/:id", rest.Op{Summary: "Revoke a credential", Tag: "operator", Auth: opAuth,
		Responses: map[int]string{200: "revoked", 404: "unknown id"}}, keys.Revoke)
}
