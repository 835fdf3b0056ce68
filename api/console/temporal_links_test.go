package console

import (
	"net/http"
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
