package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestTemporalLinks_NamespaceIsNamedOnce(t *testing.T) {
	t.Parallel()
	cases := []struct{ ui, ns, workflow, list string }{
		{"http://ui.test:8233", "default",
			"http://ui.test:8233/namespaces/default/workflows/rollout%2Fro_1",
			"http://ui.test:8233/namespaces/default/workflows?query=GatehouseKind%3D%22rollout%22"},
		// Temporal Cloud's console URL already ends with the namespace.
		{"https://cloud.temporal.io/namespaces/gatehouse-prod.a1b2c", "gatehouse-prod.a1b2c",
			"https://cloud.temporal.io/namespaces/gatehouse-prod.a1b2c/workflows/rollout%2Fro_1",
			"https://cloud.temporal.io/namespaces/gatehouse-prod.a1b2c/workflows?query=GatehouseKind%3D%22rollout%22"},
	}
	for _, tc := range cases {
		c := &Console{temporalUI: tc.ui, namespace: tc.ns}
		if got := c.workflowURL("rollout/ro_1"); got != tc.workflow {
			t.Errorf("workflow link %s, want %s", got, tc.workflow)
		}
		if got := c.workflowListURL("rollout"); got != tc.list {
			t.Errorf("list link %s, want %s", got, tc.list)
		}
	}
	if (&Console{namespace: "default"}).workflowListURL("rollout") != "" {
		t.Error("no Temporal UI configured: no link")
	}
}

func TestPages_ListsLinkTheirWorkflowsInTheTemporalUI(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, _ := h.session()
	for path, want := range map[string]string{
		"/console/rollouts": `href="http://ui.test:8233/namespaces/default/workflows?query=GatehouseKind%3D%22rollout%22"`,
		"/console/sessions": `href="http://ui.test:8233/namespaces/default/workflows?query=GatehouseKind%3D%22flylab-session%22"`,
	} {
		rec := h.get(path, ck)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("GET %s = %d, want a link %s", path, rec.Code, want)
		}
	}
}

func TestTemporalLinks_ListQueriesOnTheSearchAttributes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ui, ns string
		pairs  []string
		want   string
	}{
		{"http://ui.test:8233", "default", []string{"GatehouseKind", "research-experiment", "GatehouseProject", "p 1", "GatehouseGate", "design_review"},
			"http://ui.test:8233/namespaces/default/workflows?query=GatehouseKind%3D%22research-experiment%22%20AND%20GatehouseProject%3D%22p%201%22%20AND%20GatehouseGate%3D%22design_review%22"},
		// Empty values are left out of the query.
		{"http://ui.test:8233", "default", []string{"GatehouseKind", "rollout", "GatehouseGate", ""},
			"http://ui.test:8233/namespaces/default/workflows?query=GatehouseKind%3D%22rollout%22"},
		// A quote, backslash, ampersand or plus cannot end the literal or the parameter.
		{"http://ui.test:8233", "default", []string{"GatehouseProject", `a"b\c&d+e`},
			`http://ui.test:8233/namespaces/default/workflows?query=GatehouseProject%3D%22a%5C%22b%5C%5Cc%26d%2Be%22`},
		{"https://cloud.temporal.io/namespaces/gatehouse-prod.a1b2c", "gatehouse-prod.a1b2c", []string{"GatehouseKind", "flylab-session", "GatehouseProject", "s1"},
			"https://cloud.temporal.io/namespaces/gatehouse-prod.a1b2c/workflows?query=GatehouseKind%3D%22flylab-session%22%20AND%20GatehouseProject%3D%22s1%22"},
	}
	for _, tc := range cases {
		c := &Console{temporalUI: tc.ui, namespace: tc.ns}
		got := c.temporalListURL(tc.pairs...)
		if got != tc.want {
			t.Errorf("list link %s\nwant %s", got, tc.want)
			continue
		}
		u, err := url.Parse(got)
		if err != nil || strings.Count(u.RawQuery, "=") != 1 {
			t.Errorf("link %s does not carry exactly one query parameter", got)
		}
	}
	if got := (&Console{temporalUI: "http://ui.test:8233", namespace: "default"}).temporalListURL(`GatehouseProject`, `x"y`); got == "" {
		t.Error("no link")
	} else if u, _ := url.Parse(got); u.Query().Get("query") != `GatehouseProject="x\"y"` {
		t.Errorf("decoded query %q", u.Query().Get("query"))
	}
	if (&Console{namespace: "default"}).temporalListURL("GatehouseKind", "rollout") != "" {
		t.Error("no Temporal UI configured: no link")
	}
	if (&Console{temporalUI: "http://ui.test:8233", namespace: "default"}).temporalListURL("GatehouseKind", "") != "" {
		t.Error("no attribute with a value: no link")
	}
}

func TestPages_EveryListRowLinksATemporalListQuery(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, _ := h.session()
	const ui = `href="http://ui.test:8233/namespaces/default/workflows?query=`
	for path, wants := range map[string][]string{
		"/console/rollouts": {ui + `GatehouseKind%3D%22rollout%22%20AND%20WorkflowId%3D%22rollout%2Fro_1%22"`},
		"/console/sessions": {ui + `GatehouseKind%3D%22flylab-session%22%20AND%20GatehouseProject%3D%22page_session_1%22"`,
			ui + `GatehouseKind%3D%22flylab-experiment%22%20AND%20GatehouseProject%3D%22page_session_1%22"`},
		"/console/experiments": {ui + `GatehouseKind%3D%22research-experiment%22%20AND%20GatehouseProject%3D%22proj_1%22%20AND%20WorkflowId%3D%22research-experiment%2Frexp_7%22"`,
			ui + `GatehouseKind%3D%22research-experiment%22%20AND%20GatehouseProject%3D%22proj_1%22"`,
			ui + `GatehouseKind%3D%22research-experiment%22"`},
		// A filtered list links the same filter in the Temporal UI.
		"/console/rollouts?state=leased":                   {ui + `GatehouseKind%3D%22rollout%22%20AND%20ExecutionStatus%3D%22Running%22"`},
		"/console/rollouts?state=cancelled":                {ui + `GatehouseKind%3D%22rollout%22%20AND%20ExecutionStatus%3D%22Completed%22"`},
		"/console/sessions?gate=saved":                     {ui + `GatehouseKind%3D%22flylab-session%22%20AND%20GatehouseGate%3D%22saved%22"`},
		"/console/experiments?project=proj_1&gate=planned": {ui + `GatehouseKind%3D%22research-experiment%22%20AND%20GatehouseProject%3D%22proj_1%22%20AND%20GatehouseGate%3D%22planned%22"`},
	} {
		rec := h.get(path, ck)
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s = %d", path, rec.Code)
			continue
		}
		for _, w := range wants {
			if !strings.Contains(rec.Body.String(), w) {
				t.Errorf("GET %s lacks a link %s", path, w)
			}
		}
	}
}
