// A real MCP client, the official TypeScript SDK, against `tilookup mcp
// --sandbox`: over stdio as a desktop assistant launches it, then over
// Streamable HTTP on loopback, where a request without the bearer token
// must be refused. Any failed check exits non-zero.
//
//   node client.mjs /path/to/tilookup
import { spawn } from "node:child_process";
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
const TOOLS = ["detect", "events_me", "extract", "pivot", "search", "triage"];

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
  check(notReadOnly.length === 0, `${how}: every tool is read-only`, notReadOnly);
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

try {
  await overStdio();
  await overHTTP();
  console.log("MCP client checks passed");
} catch (e) {
  console.error(`FAIL ${e.message}`);
  process.exit(1);
}
