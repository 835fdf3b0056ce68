package flywheel

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestOutput_EverySchemaRule(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	sha := strings.Repeat("a", 64)
	cases := []struct {
		name   string
		body   string
		status int
		path   string
	}{
		{"minimal", `{"final_text":"done"}`, 200, ""},
		{"malformed JSON is 400", `{"final_text":`, 400, ""},
		{"final_text required", `{}`, 422, ""},
		{"final_text must be a string", `{"final_text":null}`, 422, "/final_text"},
		{"server-authored score rejected", `{"final_text":"x","score":1}`, 422, ""},
		{"server-authored rollout_id rejected", `{"final_text":"x","rollout_id":"ro_1"}`, 422, ""},
		{"server-derived fingerprint rejected", `{"final_text":"x","server_fingerprint":{}}`, 422, ""},
		{"server count rejected", `{"final_text":"x","llm_calls_observed":2}`, 422, ""},
		{"tool_calls null (not reported)", `{"final_text":"x","tool_calls":null}`, 200, ""},
		{"tool_calls [] (observed zero)", `{"final_text":"x","tool_calls":[]}`, 200, ""},
		{"unknown outcome with status refused", `{"final_text":"x","tool_calls":[{"name":"t","outcome":"unknown","status_code":200}]}`, 422, "/tool_calls/0/status_code"},
		{"unknown outcome with null status", `{"final_text":"x","tool_calls":[{"name":"t","outcome":"unknown","status_code":null}]}`, 200, ""},
		{"tool call missing status_code key", `{"final_text":"x","tool_calls":[{"name":"t","outcome":"ok"}]}`, 422, "/tool_calls/0"},
		{"omitted count negative", `{"final_text":"x","tool_calls_omitted_count":-1}`, 422, "/tool_calls_omitted_count"},
		{"omitted count beyond 64 bits", `{"final_text":"x","tool_calls_omitted_count":1e40}`, 422, "/tool_calls_omitted_count"},
		{"llm_call_count negative", `{"final_text":"x","llm_call_count":-1}`, 422, "/llm_call_count"},
		{"llm_call_count null", `{"final_text":"x","llm_call_count":null}`, 200, ""},
		{"artifact digest string", `{"final_text":"x","artifacts":{"a.txt":"` + sha + `","big.bin":"skipped:too_large:9999999"}}`, 200, ""},
		{"artifact inline body", `{"final_text":"x","artifacts":{"a.txt":{"sha256":"` + sha + `","size_bytes":3,"content":"abc"}}}`, 200, ""},
		{"artifact short sha256", `{"final_text":"x","artifacts":{"a.txt":{"sha256":"abc","size_bytes":3,"content":"abc"}}}`, 422, ""},
		{"artifact inline needs content", `{"final_text":"x","artifacts":{"a.txt":{"sha256":"` + sha + `","size_bytes":3}}}`, 422, ""},
		{"artifact inline closed", `{"final_text":"x","artifacts":{"a.txt":{"sha256":"` + sha + `","size_bytes":3,"content":"abc","mime":"text/plain"}}}`, 422, ""},
		{"artifact value number", `{"final_text":"x","artifacts":{"a.txt":5}}`, 422, ""},
		{"reward must be a number", `{"final_text":"x","reward":"high"}`, 422, "/reward"},
		{"reward advisory number", `{"final_text":"x","reward":0.25}`, 200, ""},
		{"success must be boolean", `{"final_text":"x","success":"yes"}`, 422, "/success"},
		{"exclusion reason vocabulary", `{"final_text":"x","exclusion":{"reason":"bored"}}`, 422, ""},
		{"exclusion reason required", `{"final_text":"x","exclusion":{"detail":"x"}}`, 422, ""},
		{"exclusion closed", `{"final_text":"x","exclusion":{"reason":"cancelled","by":"me"}}`, 422, ""},
		{"exclusion legal", `{"final_text":"x","exclusion":{"reason":"agent_exit_nonzero","detail":null}}`, 200, ""},
		{"exclusion null", `{"final_text":"x","exclusion":null}`, 200, ""},
		{"events items are objects", `{"final_text":"x","events":[1]}`, 422, "/events/0"},
		{"events is an array", `{"final_text":"x","events":{}}`, 422, "/events"},
		{"timing is an object", `{"final_text":"x","timing":[]}`, 422, "/timing"},
		{"agent_fingerprint object", `{"final_text":"x","agent_fingerprint":{"sdk":"1.2"}}`, 200, ""},
		{"agent_fingerprint not a string", `{"final_text":"x","agent_fingerprint":"sdk-1.2"}`, 422, "/agent_fingerprint"},
	}
	for _, tc := range cases {
		g := e.lease(time.Hour)
		r := e.output(g, tc.body)
		if r.Status != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.name, r.Status, tc.status, r.Body)
			continue
		}
		if tc.status == 422 && tc.path != "" && !hasViolationAt(t, r, tc.path) {
			t.Errorf("%s: no violation at %q: %s", tc.name, tc.path, r.Body)
		}
		if tc.status != 200 {
			// A rejected output changes nothing: the lease still takes a good one.
			if r := e.output(g, `{"final_text":"retry"}`); r.Status != 200 {
				t.Errorf("%s: the rejected body changed state: %d %s", tc.name, r.Status, r.Body)
			}
		}
	}
}

func TestOutput_StoredExactlyAndReadBack(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	g := e.lease(time.Hour)
	body := `{"final_text":"x","tool_calls":null,"llm_call_count":0,"agent_fingerprint":{"sdk":"1"},"reward":0.5}`
	if r := e.output(g, body); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var v struct {
		ToolCalls json.RawMessage `json:"tool_calls"`
		OnPolicy  *bool           `json:"on_policy"`
		Output    struct {
			AgentFingerprint json.RawMessage `json:"agent_fingerprint_attested"`
			Reward           float64         `json:"reward"`
		} `json:"output"`
	}
	e.do(http.MethodGet, "/operator/v1/rollouts/"+g.Rollout.ID, e.opToken, nil).decode(t, &v)
	if string(v.ToolCalls) != "null" || v.OnPolicy == nil || !*v.OnPolicy || string(v.Output.AgentFingerprint) != `{"sdk":"1"}` || v.Output.Reward != 0.5 {
		t.Fatalf("read back %+v", v)
	}
	g2 := e.lease(time.Hour)
	e.output(g2, `{"final_text":"x","tool_calls":[],"llm_call_count":0,"tool_calls_omitted_count":1}`)
	e.do(http.MethodGet, "/operator/v1/rollouts/"+g2.Rollout.ID, e.opToken, nil).decode(t, &v)
	if string(v.ToolCalls) != "[]" || *v.OnPolicy {
		t.Fatalf("[] must read back as [] and omitted calls forbid on_policy: %s %v", v.ToolCalls, *v.OnPolicy)
	}
}

func TestLeaseEndpoints_StatusCodes(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	g := e.lease(time.Hour)
	other := e.lease(time.Hour)
	hb := func(key, token string) result {
		return e.do(http.MethodPost, "/flywheel/rollouts/"+g.Rollout.ID+"/heartbeat", key, nil, LeaseTokenHeader, token)
	}
	r := hb(g.APIKey, g.LeaseToken)
	var ok struct {
		LeaseExpiresTS float64 `json:"lease_expires_ts"`
	}
	r.decode(t, &ok)
	if r.Status != 200 || ok.LeaseExpiresTS < float64(time.Now().Unix()+50) {
		t.Fatalf("heartbeat: %d %s", r.Status, r.Body)
	}
	for name, c := range map[string]struct {
		key, token string
		want       int
	}{
		"stale token":           {g.APIKey, "lt_stale", 409},
		"foreign token":         {g.APIKey, other.LeaseToken, 409},
		"another rollout's key": {other.APIKey, other.LeaseToken, 403},
		"unknown key":           {"rk_unknown", g.LeaseToken, 401},
		"no key":                {"", g.LeaseToken, 401},
		"no token":              {g.APIKey, "", 409},
	} {
		if r := hb(c.key, c.token); r.Status != c.want {
			t.Errorf("%s: %d, want %d: %s", name, r.Status, c.want, r.Body)
		}
	}
	if r := e.output(g, `{"final_text":"a"}`); r.Status != 200 {
		t.Fatalf("output: %d %s", r.Status, r.Body)
	}
	if r := e.output(g, `{"final_text":"b"}`); r.Status != 409 {
		t.Fatalf("second output: %d %s", r.Status, r.Body)
	}
	past := e.lease(time.Second)
	time.Sleep(1100 * time.Millisecond)
	if r := e.do(http.MethodPost, "/flywheel/rollouts/"+past.Rollout.ID+"/heartbeat", past.APIKey, nil, LeaseTokenHeader, past.LeaseToken); r.Status != 410 {
		t.Fatalf("after deadline: %d %s", r.Status, r.Body)
	}
}

func TestClaim_EmptyIsOKWithBackoffAndGrantsAreClamped(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{LeaseMin: 10 * time.Second, LeaseMax: 30 * time.Second})
	r := e.do(http.MethodPost, "/flywheel/claim", e.agentKey, []byte(`{"max_rollouts":2,"lease_s":3600}`))
	if r.Status != 200 || string(r.Body) != `{"poll_after_ms":2000,"rollouts":[]}` {
		t.Fatalf("empty claim: %d %s", r.Status, r.Body)
	}
	e.do(http.MethodPost, "/operator/v1/rollouts", e.opToken, []byte(`{"rollouts":[{"turn_input":"a","metadata":{"k":1}},{"turn_input":"b"}]}`))
	r = e.do(http.MethodPost, "/flywheel/claim", e.agentKey, []byte(`{"max_rollouts":5,"lease_s":3600}`))
	if vs, err := e.mustSchema().schemas.ClaimResponse.ValidateJSON(r.Body); err != nil || len(vs) > 0 {
		t.Fatalf("claim response breaks ClaimResponse: %v %v %s", vs, err, r.Body)
	}
	var resp struct {
		Rollouts []struct {
			LeaseExpiresTS float64 `json:"lease_expires_ts"`
			LLMURL         string  `json:"llm_url"`
		} `json:"rollouts"`
	}
	r.decode(t, &resp)
	if len(resp.Rollouts) != 2 {
		t.Fatalf("want 2 rollouts: %s", r.Body)
	}
	for _, ro := range resp.Rollouts {
		if d := ro.LeaseExpiresTS - float64(time.Now().Unix()); d > 31 || d < 25 {
			t.Fatalf("lease must be clamped to 30s, got %.1fs", d)
		}
		if !strings.HasPrefix(ro.LLMURL, "http://gatehouse.test/llm/lg_") || !strings.HasSuffix(ro.LLMURL, "/v1") {
			t.Fatalf("llm_url %s", ro.LLMURL)
		}
	}
	if r := e.do(http.MethodPost, "/flywheel/claim", e.agentKey, []byte(`{"max_rollouts":0}`)); r.Status != 422 {
		t.Fatalf("max_rollouts 0: %d", r.Status)
	}
}
