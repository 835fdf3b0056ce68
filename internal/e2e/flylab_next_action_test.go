package e2e

import (
	"net/http"
	"slices"
	"testing"
)

// missionQueries are the searches an agent writes for each behavior, in
// order: the grooming mission's first search is ambiguous (two grooming
// circuits tie), so its agent has to search again, as next_action says.
var missionQueries = map[string][]string{
	"backward_walking":  {"moonwalker descending neuron backward walking"},
	"retreat":           {"LC16 visual projection neurons retreat"},
	"forward_walking":   {"P9 and BPN descending neurons forward walking"},
	"turning":           {"descending steering neurons turning"},
	"short_mode_escape": {"giant fiber short-mode escape takeoff"},
	"grooming":          {"antennal grooming neurons", "antennal grooming descending neurons aDN"},
}

// agentContentFor is what the agent writes itself for a field next_action
// leaves to it (agent_supplies).
func agentContentFor(behavior, field string, searches int) any {
	switch field {
	case "query":
		q := missionQueries[behavior]
		return q[min(searches, len(q)-1)]
	case "claim":
		return "Perturbing the selected circuit changes " + behavior + " in the reduced-order model."
	case "expected_direction":
		return "increase"
	case "evidence_limitations":
		return []string{"Reduced-order model; not a wet-lab result."}
	case "falsification_criterion":
		return "No change of the primary outcome over sham."
	}
	return nil
}

// TestFlyLab_AgentFollowingOnlyNextActionFinishesAMissionPerBehaviour is
// an agent that only ever calls the tool next_action names, with exactly
// its arguments plus its own content for the fields in agent_supplies
// (and a behavior filter on its searches). For each of the six behaviors
// it must reach a saved evidence bundle, in a new page session, except
// the last, which it starts by searching again in the session the
// previous mission saved; the operator approves whenever next_action is
// the human gate. It used to
// stall: a callable draft with an empty circuit_id after an ambiguous
// search, the literal "<stable id>" operation id, "in progress" right
// after a successful call, and "complete" once a mission had been saved.
func TestFlyLab_AgentFollowingOnlyNextActionFinishesAMissionPerBehaviour(t *testing.T) {
	s := Shared(t)
	a := newFlyAgent(t, s, "flylab-next-action")
	var previousSession any
	for _, behavior := range []string{"backward_walking", "retreat", "forward_walking", "turning", "short_mode_escape", "grooming"} {
		t.Run(behavior, func(t *testing.T) {
			a.t = t
			env := a.inspect(map[string]any{"new_page_session": true, "operation_id": "open-" + behavior})
			next := agentContext(env)["next_action"].(map[string]any)
			if behavior == "grooming" {
				// This mission starts in the page session the previous one
				// saved: the agent searches again there, as the complete
				// next_action says it may.
				env = a.inspect(map[string]any{"page_session_id": previousSession})
				if next := agentContext(env)["next_action"].(map[string]any); next["kind"] != "complete" {
					t.Fatalf("the previous mission's session is not complete: %v", next)
				}
				next = map[string]any{"kind": "tool", "name": "find_fly_circuits", "agent_supplies": []any{"query"},
					"arguments": map[string]any{"page_session_id": previousSession, "expected_state_revision": env["state_revision"]}}
			}
			sid := next["arguments"].(map[string]any)["page_session_id"]
			var called []string
			searches := 0
			for step := 0; step < 20; step++ {
				switch next["kind"] {
				case "complete":
					if refs := next["input_refs"].(map[string]any); refs["evidence_bundle_id"] == nil || !slices.Contains(called, "save_fly_evidence") {
						t.Fatalf("complete without a saved bundle: %v after %v", next, called)
					}
					if behavior == "grooming" {
						recordHistory(t, s, "flylab-session/"+sid.(string), "session_new_mission_after_save")
					}
					previousSession = sid
					return
				case "human_gate":
					refs := next["input_refs"].(map[string]any)
					r := s.Do(t, http.MethodPost, "/operator/v1/flylab/experiments/"+refs["experiment_id"].(string)+"/approve",
						s.OperatorToken, map[string]any{"protocol_hash": refs["pending_protocol_hash"]})
					if r.Status != http.StatusOK {
						t.Fatalf("operator approval: %d %s", r.Status, r.Body)
					}
					next = agentContext(a.inspect(nil))["next_action"].(map[string]any)
					continue
				case "wait":
					t.Fatalf("next_action is a wait with nothing running, after %v: %v", called, next)
				}
				name := next["name"].(string)
				args := map[string]any{}
				for k, v := range next["arguments"].(map[string]any) {
					args[k] = v
				}
				for _, f := range next["agent_supplies"].([]any) {
					args[f.(string)] = agentContentFor(behavior, f.(string), searches)
				}
				if name == "find_fly_circuits" {
					args["behavior"] = behavior
					searches++
				}
				env = a.call(name, args)
				if env["ok"] != true {
					t.Fatalf("%s as next_action proposed it (%v) failed: %v", name, args, env["error"])
				}
				called = append(called, name)
				next = env["next_action"].(map[string]any)
			}
			t.Fatalf("no saved mission after 20 steps: %v", called)
		})
	}
}
