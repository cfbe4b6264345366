// Drives applypatch-mcp over stdio with the official MCP TypeScript SDK, as an editor would.
//
// Usage: node client.mjs PLAN_JSON
//
// PLAN_JSON: {"command": PATH, "args": [...], "listTools": bool,
//             "answers": [ElicitResult, ...], "calls": [{"patchText": ...}, ...]}
// A call is apply_patch's arguments, or {"tool": NAME, "arguments": {...}} for another tool.
// Prints {"tools": [...], "asked": [message, ...], "results": [{"text", "isError"}, ...]}
// on standard output. Elicitation requests are answered from "answers", in order.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const plan = JSON.parse(process.argv[2]);
const out = { tools: [], asked: [], results: [] };

const client = new Client(
  { name: "ts-sdk-client", version: "0.0.0" },
  { capabilities: plan.answers ? { elicitation: { form: {} } } : {} },
);
if (plan.answers) {
  const answers = [...plan.answers];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    out.asked.push(req.params.message);
    return answers.shift() ?? { action: "cancel" };
  });
}

await client.connect(new StdioClientTransport({ command: plan.command, args: plan.args, env: process.env, stderr: "inherit" }));
if (plan.listTools) {
  const { tools } = await client.listTools();
  out.tools = tools.map((t) => ({ name: t.name, required: t.inputSchema.required ?? [] }));
}
for (const args of plan.calls ?? []) {
  const call = args.tool ? { name: args.tool, arguments: args.arguments ?? {} } : { name: "apply_patch", arguments: args };
  const res = await client.callTool(call);
  out.results.push({ text: res.content.map((c) => c.text).join("\n"), isError: res.isError === true });
}
await client.close();
process.stdout.write(JSON.stringify(out));
