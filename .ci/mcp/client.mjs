// A real MCP client, the official TypeScript SDK, against `tilookup mcp
// --sandbox`: over stdio as a desktop assistant launches it, then over
// Streamable HTTP on loopback, where a request without the bearer token
// must be refused. Any failed check exits non-zero.
//
//   node client.mjs /path/to/tilookup
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const bin = process.argv[2];
if (!bin) {
  console.error("usage: node client.mjs /path/to/tilookup");
  process.exit(2);
}

const EICAR_MD5 = "44d88612fea8a8f36de82e1278abb02f";
const REPORT = `Incident 42: the dropper (md5 ${EICAR_MD5}) beaconed from 10.1.2.3 to
hxxp://203.0.113[.]66/gate.php and exploited CVE-2021-44228.`;
const TOOLS = ["detect", "events_me", "extract", "pivot", "search", "triage", "watch"];
const PROMPTS = ["investigate", "triage_report", "watch_changes"];

function check(ok, what, detail) {
  if (!ok) {
    throw new Error(`${what}${detail === undefined ? "" : ": " + JSON.stringify(detail).slice(0, 2000)}`);
  }
  console.log(`ok   ${what}`);
}

// exercise lists the tools and calls search and triage through client.
async function exercise(client, how) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === JSON.stringify(TOOLS), `${how}: the tools are ${TOOLS.join(", ")}`, names);
  const notReadOnly = tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name);
  check(JSON.stringify(notReadOnly) === '["watch"]', `${how}: every tool but watch is read-only`, notReadOnly);
  const noSchema = tools.filter((t) => t.inputSchema?.type !== "object" || t.outputSchema?.type !== "object").map((t) => t.name);
  check(noSchema.length === 0, `${how}: every tool has input and output schemas`, noSchema);
  const offline = tools.filter((t) => t.annotations?.openWorldHint === false).map((t) => t.name).sort();
  check(JSON.stringify(offline) === '["detect","extract"]', `${how}: detect and extract are offline`, offline);

  const untitled = tools.filter((t) => !t.title).map((t) => t.name);
  check(untitled.length === 0, `${how}: every tool has a top-level title`, untitled);

  // A value with no match first: the answer puts matched values first.
  const values = ["no-match-at-all.example", EICAR_MD5, "hxxps://verify-check[.]example/login"];
  const search = await client.callTool({ name: "search", arguments: { values } });
  check(!search.isError, `${how}: search succeeds`, search.content);
  const text = JSON.parse(search.content[0].text);
  check(Object.keys(text)[0] === "summary", `${how}: the answer opens with the summary`, Object.keys(text));
  const sum = search.structuredContent.summary;
  check(sum.total === 3 && sum.matched + sum.no_match + sum.unsupported + sum.failed === 3 && sum.matched >= 1 && sum.no_match >= 1,
    `${how}: the summary counts every value`, sum);
  check(sum.top_resources?.length >= 1 && sum.top_resources[0].values >= 1, `${how}: the summary names the resources that matched most`, sum);
  const got = search.structuredContent.values;
  const lastMatched = got.map((v) => v.status).lastIndexOf("matched");
  const firstNoMatch = got.map((v) => v.status).indexOf("no_match");
  check(lastMatched >= 0 && firstNoMatch > lastMatched, `${how}: matched values come before no-match ones`, got.map((v) => [v.input, v.status]));
  const hash = got.find((v) => v.input === EICAR_MD5);
  check(hash.status === "matched" && hash.matches.some((m) => m.label === "Malware samples"), `${how}: search finds the EICAR hash`, hash);
  check(hash.matches.every((m) => (m.preview ?? []).length <= 3), `${how}: previews are cut to 3 records`);
  const url = got.find((v) => v.input === values[2]);
  check(url.query === "https://verify-check.example/login", `${how}: search refangs`, url);
  check(text.values.length === 3, `${how}: the text content carries the same JSON`);
  const brief = await client.callTool({ name: "search", arguments: { values, detail: "summary" } });
  check(!brief.isError && brief.content[0].text.length < search.content[0].text.length &&
    brief.structuredContent.values.every((v) => (v.matches ?? []).every((m) => m.preview === undefined && m.detail_url === undefined)),
    `${how}: detail "summary" keeps resources and counts only, and is smaller`, brief.structuredContent);

  const triage = await client.callTool({ name: "triage", arguments: { text: REPORT } });
  check(!triage.isError, `${how}: triage succeeds`, triage.content);
  const { summary, skipped, indicators } = triage.structuredContent;
  check(summary.matched >= 1 && summary.total === 5 && summary.skipped === 1 && summary.url_hosts === 1, `${how}: triage counts five indicators as the CLI does (four looked up, the URL's host among them, one skipped) and finds matches`, summary);
  check(indicators.some((i) => i.value === "203.0.113.66" && i.from_url === "http://203.0.113.66/gate.php"), `${how}: triage looks up the URL's host, naming the URL`, indicators);
  check(skipped.length === 1 && skipped[0].value === "10.1.2.3", `${how}: triage skips the private address`, skipped);

  const bad = await client.callTool({ name: "search", arguments: { values: ["bad\u0001value"] } });
  check(bad.isError === true && /control character/.test(bad.content[0].text), `${how}: a bad value is a tool error`, bad);
}

async function overStdio() {
  const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--sandbox"], stderr: "inherit" });
  const client = new Client({ name: "tilookup-ci", version: "1.0.0" });
  await client.connect(transport);
  try {
    await exercise(client, "stdio");
  } finally {
    await client.close();
  }
}

// startHTTP runs `tilookup mcp --sandbox --http 127.0.0.1:0` and reads the
// address and the generated token from its stderr.
function startHTTP() {
  const child = spawn(bin, ["mcp", "--sandbox", "--http", "127.0.0.1:0"], { stdio: ["ignore", "inherit", "pipe"] });
  return new Promise((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error(`no address and token on stderr after 20s: ${err}`)), 20000);
    child.on("exit", (code) => reject(new Error(`tilookup mcp --http exited with ${code}: ${err}`)));
    child.stderr.on("data", (chunk) => {
      err += chunk;
      const url = err.match(/(http:\/\/127\.0\.0\.1:\d+\/mcp)/);
      const token = err.match(/Bearer token: (\S+)/);
      if (url && token) {
        clearTimeout(timer);
        resolve({ child, url: new URL(url[1]), token: token[1] });
      }
    });
  });
}

async function overHTTP() {
  const { child, url, token } = await startHTTP();
  try {
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
    const post = (headers) => fetch(url, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(init) });
    const none = await post({});
    check(none.status === 401, "http: a request without the bearer token is refused with 401", none.status);
    const wrong = await post({ Authorization: "Bearer not-the-token" });
    check(wrong.status === 401, "http: a request with a wrong token is refused with 401", wrong.status);

    let refused = false;
    try {
      const anon = new Client({ name: "tilookup-ci-anonymous", version: "1.0.0" });
      await anon.connect(new StreamableHTTPClientTransport(url));
      await anon.close();
    } catch {
      refused = true;
    }
    check(refused, "http: the SDK client without the token cannot connect");

    const client = new Client({ name: "tilookup-ci", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      await exercise(client, "http");
    } finally {
      await client.close();
    }
  } finally {
    child.removeAllListeners("exit");
    child.kill("SIGTERM");
  }
}

// The sandbox's watch lists, as tilookup watch --sandbox keeps them.
const stateDir = join(process.env.XDG_STATE_HOME || join(process.env.HOME, ".local", "state"), "tilookup", "watch", "sandbox");
const WATCHED = [EICAR_MD5, "203.0.113.66", "no-match-at-all.example"];

// unsettle edits a list's state as time would: EICAR unseen (new next
// time), 203.0.113.66's first count 100 more (changed), and a resource for the
// no-match value (gone).
function unsettle(name) {
  const file = join(stateDir, `${name}.json`);
  const st = JSON.parse(readFileSync(file, "utf8"));
  delete st.values[EICAR_MD5].r;
  st.values["203.0.113.66"].r[0].n += 100;
  st.values["no-match-at-all.example"].r = [{ id: "ioc_feed", n: 2 }];
  writeFileSync(file, JSON.stringify(st));
}

function cli(...args) {
  return execFileSync(bin, args, { encoding: "utf8", env: process.env });
}

// shape is what the changes say, without their times, by value (the
// tool checks a list in its values' order, the CLI in its input's).
const shape = (changes) => JSON.stringify(changes.map((c) => ({ value: c.value, type: c.type, change: c.change, resources: c.resources }))
  .sort((a, b) => (a.value < b.value ? -1 : 1)));

// unattended is an assistant given search, pivot and watch only: it
// runs each prompt end to end against the sandbox.
async function unattended() {
  const values = join(mkdtempSync(join(tmpdir(), "tilookup-mcp-")), "values.txt");
  writeFileSync(values, WATCHED.join("\n") + "\n");
  for (const name of ["via-cli", "via-mcp"]) {
    cli("watch", "--sandbox", "--name", name, "-o", "json", values);
    unsettle(name);
  }
  const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--sandbox", "--tools", "search,pivot,watch"], env: process.env, stderr: "inherit" });
  const client = new Client({ name: "tilookup-ci-unattended", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    check(JSON.stringify(tools.map((t) => t.name).sort()) === '["pivot","search","watch"]', "--tools: only search, pivot and watch are served", tools.map((t) => t.name));
    const watchTool = tools.find((t) => t.name === "watch");
    check(watchTool.annotations.readOnlyHint === false && watchTool.annotations.idempotentHint !== true, "watch: its annotations say it writes", watchTool.annotations);
    const { prompts } = await client.listPrompts();
    check(JSON.stringify(prompts.map((p) => p.name).sort()) === JSON.stringify(PROMPTS), "--tools: every prompt is offered", prompts.map((p) => p.name));
    const args = { investigate: { indicator: EICAR_MD5, max_lookups: "5" }, triage_report: { text: REPORT }, watch_changes: { name: "via-mcp" } };
    for (const p of prompts) {
      const got = await client.getPrompt({ name: p.name, arguments: args[p.name] });
      const text = got.messages[0].content.text;
      const named = [...text.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((n) => TOOLS.includes(n));
      check(named.length > 0 && named.every((n) => ["search", "pivot", "watch"].includes(n)) && /Report in this shape/.test(text),
        `prompt ${p.name}: names served tools only and says what to report`, named);
    }

    // investigate, end to end: search, then pivot within its budget.
    const search = await client.callTool({ name: "search", arguments: { values: [EICAR_MD5], detail: "full" } });
    check(!search.isError && search.structuredContent.values[0].matches.some((m) => m.detail_url), "investigate: search gives the evidence's detail URLs", search.structuredContent);
    const pivot = await client.callTool({ name: "pivot", arguments: { values: [EICAR_MD5], depth: 1, max_lookups: 5 } });
    check(!pivot.isError && pivot.structuredContent.summary !== undefined, "investigate: pivot runs within its budget", pivot.content);
    // triage_report without triage: the assistant searches the report's values.
    const triaged = await client.callTool({ name: "search", arguments: { values: [EICAR_MD5, "hxxp://203.0.113[.]66/gate.php", "CVE-2021-44228"], detail: "summary" } });
    check(!triaged.isError && triaged.structuredContent.summary.matched >= 1, "triage_report: search answers the report's values", triaged.structuredContent.summary);

    // watch_changes, end to end: the tool's changes are the CLI's for the same change.
    const viaCLI = JSON.parse(cli("watch", "--sandbox", "--name", "via-cli", "-o", "json", values));
    const viaMCP = await client.callTool({ name: "watch", arguments: { name: "via-mcp" } });
    check(!viaMCP.isError, "watch: the tool checks the list again", viaMCP.content);
    check(shape(viaMCP.structuredContent.changes) === shape(viaCLI) && viaCLI.length === 3,
      "watch: the tool's changes are the CLI's (new, changed, gone)", { mcp: viaMCP.structuredContent.changes, cli: viaCLI });
    const after = JSON.parse(readFileSync(join(stateDir, "via-mcp.json"), "utf8"));
    const afterCLI = JSON.parse(readFileSync(join(stateDir, "via-cli.json"), "utf8"));
    check(JSON.stringify(after.values[EICAR_MD5].r) === JSON.stringify(afterCLI.values[EICAR_MD5].r) && after.changes === afterCLI.changes,
      "watch: the state is updated as the CLI updates it", { mcp: after.values[EICAR_MD5], cli: afterCLI.values[EICAR_MD5] });
    const unknown = await client.callTool({ name: "watch", arguments: { name: "nope" } });
    check(unknown.isError && /via-cli, via-mcp/.test(unknown.content[0].text), "watch: an unknown list is a tool error naming the lists", unknown.content);

    // Concurrent calls on one list: the lock lets one see the change.
    unsettle("via-mcp");
    const calls = await Promise.all([1, 2, 3, 4].map(() => client.callTool({ name: "watch", arguments: { name: "via-mcp" } })));
    const seen = calls.map((c) => (c.isError ? -1 : c.structuredContent.changes.length));
    check(seen.filter((n) => n === 3).length === 1 && seen.filter((n) => n === 0).length === 3, "watch: of 4 calls at once, exactly one reports the change", seen);
  } finally {
    await client.close();
  }
}

try {
  await overStdio();
  await overHTTP();
  await unattended();
  console.log("MCP client checks passed");
} catch (e) {
  console.error(`FAIL ${e.message}`);
  process.exit(1);
}
