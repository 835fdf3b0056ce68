// A real MCP client (the official TypeScript SDK) that lists the FlyLab
// tools and runs the pipeline up to the operator gate, then (after the Go
// test approves through the operator endpoint, signalled by a line on
// stdout and a line on stdin) runs, analyzes, compares and saves.
// Usage: node mcp-flylab-client.mjs <mcp url> <agent key>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import readline from "node:readline";

const [url, key] = process.argv.slice(2);
const client = new Client({ name: "flylab-interop", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
console.log(JSON.stringify({ tools: names }));

let progress = 0;
async function call(name, args, opts = {}) {
  const res = await client.callTool({ name, arguments: args }, undefined, opts);
  const env = res.structuredContent;
  if (JSON.stringify(env) !== JSON.stringify(JSON.parse(res.content[0].text))) throw new Error(`${name}: text differs from structuredContent`);
  if (!env.ok) throw new Error(`${name}: ${JSON.stringify(env.error)}`);
  return env;
}
const lines = readline.createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once("line", resolve));

let env = await call("inspect_flylab_state", {});
const sid = env.page_session_id;
env = await call("find_fly_circuits", { page_session_id: sid, expected_state_revision: env.state_revision,
  query: "moonwalker backward walking", behavior: "backward_walking" });
env = await call("draft_fly_hypothesis", { page_session_id: sid, expected_state_revision: env.state_revision,
  circuit_id: "circuit_mdn_backward", claim: "Activating MDN drives backward walking in the model.",
  predicted_behavior: "backward_walking", perturbation: "activate", primary_outcome: "backward_distance_mm",
  expected_direction: "increase", controls: ["condition_baseline", "condition_sham"], evidence_ids: ["E-MDN-ACTIVATION-001"],
  evidence_limitations: ["Reduced-order model only."], falsification_criterion: "No increase over sham." });
const hyp = env.data.hypothesis.id;
env = await call("design_stimulation_trial", { page_session_id: sid, expected_state_revision: env.state_revision,
  hypothesis_id: hyp, target_circuit_id: "circuit_mdn_backward", perturbation: "activate", laterality: "bilateral",
  activation_level: 0.7, onset_ms: 300, duration_ms: 4000, trial_duration_ms: 8000, replicates: 12,
  include_baseline: true, include_sham_control: true, seed: 11 });
const exp = env.data.experiment;
console.log(JSON.stringify({ awaiting: exp.id, protocol_hash: exp.protocolHash }));
await nextLine();
env = await call("inspect_flylab_state", {});
const hash = env.data.agent_context.human_gate.approved_protocol_hash;
// Cancel the run at its first progress notification: the client rejects
// with an AbortError, and the contract says nothing is published.
const approvedRevision = env.state_revision;
const abort = new AbortController();
let aborted = "";
try {
  await call("run_fly_simulation", { page_session_id: sid, expected_state_revision: approvedRevision,
    experiment_id: exp.id, approved_protocol_hash: hash, operation_id: "mcp-run-1" },
    { signal: abort.signal, onprogress: () => abort.abort() });
} catch (e) {
  // The SDK sends notifications/cancelled and rejects with an McpError
  // wrapping the signal's reason, a DOMException named AbortError.
  aborted = /AbortError/.test(String(e.message)) ? "AbortError" : `${e.name}: ${e.message}`;
}
// The session settles (the cancel stops the simulation), then shows the
// approved experiment still unrun at the same revision.
for (let i = 0; i < 100; i++) {
  env = await call("inspect_flylab_state", {});
  if (env.data.agent_context.agent_status !== "running") break;
  await new Promise((r) => setTimeout(r, 100));
}
console.log(JSON.stringify({ cancelled: aborted, revision_before: approvedRevision, revision_after: env.state_revision,
  batch_after: env.data.agent_context.artifacts.batch_id ?? null, status_after: env.data.agent_context.agent_status }));
env = await call("run_fly_simulation", { page_session_id: sid, expected_state_revision: env.state_revision,
  experiment_id: exp.id, approved_protocol_hash: hash, operation_id: "mcp-run-1" },
  { onprogress: () => { progress++; } });
const batch = env.data;
env = await call("analyze_fly_behavior", { page_session_id: sid, expected_state_revision: env.state_revision,
  batch_id: batch.id, metrics: batch.motorMap.recommendedMetrics });
const analysis = env.data.analysis.id;
env = await call("compare_fly_trials", { page_session_id: sid, expected_state_revision: env.state_revision,
  analysis_ids: [analysis], objective_metric: "backward_distance_mm", objective: "maximize" });
env = await call("save_fly_evidence", { page_session_id: sid, expected_state_revision: env.state_revision, scope: "experiment",
  hypothesis_id: hyp, experiment_id: exp.id, batch_ids: [batch.id], analysis_ids: [analysis],
  comparison_id: env.data.comparison.id, operation_id: "mcp-save-1" });
console.log(JSON.stringify({ saved: env.data.bundle.id, progress }));
lines.close();
await client.close();
