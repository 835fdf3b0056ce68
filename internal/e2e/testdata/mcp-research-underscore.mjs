// A client that rejects dotted tool names, as several desktop clients do:
// the official TypeScript SDK connects to /mcp/research?names=underscore,
// checks that no listed name has a dot, and drives one experiment to
// complete through the underscore names only (the loop of driveExperiment
// in research_test.go: upload what artifact_guidance asks, pass each review
// gate, take each transition next_action names). Dotted names the server
// hands back (reviewer_handoff.start_tool) are renamed the way such a
// client does. Prints one JSON line with the tools, one with the outcome.
// The reviews are answered over a second connection with the reviewer's
// own key: the producer's key may not review what it asked a review of.
// Usage: node mcp-research-underscore.mjs <mcp url> <agent key> <project id> <reviewer key>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, key, projectId, reviewerKey] = process.argv.slice(2);
async function connect(name, bearer) {
  const c = new Client({ name, version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }));
  return c;
}
const client = await connect("research-underscore-interop", key);
const reviewer = await connect("research-underscore-reviewer", reviewerKey);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
console.log(JSON.stringify({ tools: names }));
const dotless = (name) => name.replaceAll(".", "_");

async function call(name, args, as = client) {
  if (name.includes(".") || !names.includes(name)) throw new Error(`${name} is not a listed underscore name`);
  const res = await as.callTool({ name, arguments: args });
  const out = res.structuredContent;
  if (res.isError) throw new Error(`${name}: ${JSON.stringify(out)}`);
  return out;
}

async function upload(submitted, text) {
  const up = submitted.upload;
  const res = await fetch(up.url, { method: up.method, headers: up.headers, body: text });
  const body = await res.json();
  if (res.status !== 200 || body.valid !== true) throw new Error(`upload: ${res.status} ${JSON.stringify(body)}`);
}

async function review(expId, role) {
  const req = await call("review_request", { project_id: projectId, target_type: "experiment", target_id: expId, role });
  const started = await call(dotless(req.reviewer_handoff.start_tool), { review_request_id: req.review_request_id,
    reviewer_capability: req.reviewer_capability, caller_session_id: `reviewer-${role}` }, reviewer);
  await call("review_submit", { review_session_id: started.review_session_id, verdict: "pass", synopsis: `reviewed ${role}` }, reviewer);
}

const transitions = ["submit_design_for_review", "mark_ready_to_run", "start_running", "submit_results_for_review", "complete_experiment"];
const created = await call("experiment_create", { project_id: projectId, name: "underscore-run", intent: "do underscore names drive it" });
const expId = created.experiment_id;
const seen = [];
let status = "";
for (let step = 0; step < 60 && !status; step++) {
  const { workflow: w } = await call("workflow_status_and_next", { project_id: projectId, experiment_id: expId });
  seen.push(w.next_action);
  if (w.artifact_guidance) {
    const g = w.artifact_guidance;
    const sub = await call("artifact_submit", { project_id: projectId, target_type: "experiment", target_id: expId, role: g.role, path: g.path });
    await upload(sub, g.template.replaceAll("TODO:", "Filled in by the agent:"));
  } else if (w.review_gate) {
    await review(expId, w.review_gate.role);
  } else if (w.next_action === "none") {
    status = w.status;
  } else if (transitions.includes(w.next_action)) {
    const evidence = w.next_action === "complete_experiment" ? { conclusion: "the hypothesis held" } : {};
    await call("experiment_transition", { project_id: projectId, experiment_id: expId, transition: w.next_action, evidence });
  } else {
    throw new Error(`step ${step}: cannot act on next_action ${w.next_action}: ${JSON.stringify(w)}`);
  }
}
console.log(JSON.stringify({ experiment_id: expId, status, seen }));
await reviewer.close();
await client.close();
