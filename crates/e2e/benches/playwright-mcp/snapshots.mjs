// Playwright MCP's browser_snapshot result for the snapshot bench's small pages, as its server
// sends it to a model, written to <page>.txt beside this script. Run by hand, not by the bench
// (it needs the npm package); take them again when a small corpus page's HTML changes:
//
//   PANELOT_CORPUS_DIR=/tmp/corpus cargo bench -p panelot-e2e --bench snapshot   # writes the pages
//   mkdir /tmp/pw && cd /tmp/pw && npm i @playwright/mcp
//   node <repo>/crates/e2e/benches/playwright-mcp/snapshots.mjs /tmp/corpus
//
// The pages are served from 127.0.0.1 with an empty favicon (a 404 would add a console line to
// the result), and read with `browser_navigate` then `browser_snapshot` in a headless Chromium
// (CHROMIUM, default /usr/bin/chromium).
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PAGES = ["login", "search", "product", "settings", "inbox"];
const corpus = process.argv[2];
if (!corpus) throw new Error("usage: node snapshots.mjs <corpus dir>");
const out = path.dirname(fileURLToPath(import.meta.url));
// The package's `bin` (its exports do not name cli.js).
const pkg = createRequire(path.join(process.cwd(), "x.js")).resolve("@playwright/mcp/package.json");
const cli = path.join(path.dirname(pkg), JSON.parse(fs.readFileSync(pkg, "utf8")).bin["playwright-mcp"]);

const server = http.createServer((req, res) => {
  const name = path.basename(new URL(req.url, "http://x").pathname);
  const file = path.join(corpus, name);
  if (name.endsWith(".html") && fs.existsSync(file)) {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(fs.readFileSync(file));
  } else {
    res.writeHead(name === "favicon.ico" ? 200 : 404).end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const mcp = spawn(
  "node",
  [cli, "--headless", "--isolated", "--no-sandbox", "--codegen", "none", "--executable-path", process.env.CHROMIUM ?? "/usr/bin/chromium"],
  { stdio: ["pipe", "pipe", "inherit"] },
);
let buffer = "";
let id = 0;
const waiting = new Map();
mcp.stdout.on("data", (data) => {
  buffer += data;
  for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  }
});
const send = (message) => mcp.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
const call = (method, params) =>
  new Promise((resolve) => {
    waiting.set(++id, resolve);
    send({ id, method, params });
  });

await call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "panelot-bench", version: "0" } });
send({ method: "notifications/initialized" });
for (const page of PAGES) {
  await call("tools/call", { name: "browser_navigate", arguments: { url: `${base}/${page}.html` } });
  const answer = await call("tools/call", { name: "browser_snapshot", arguments: {} });
  if (answer.error || answer.result.isError) throw new Error(JSON.stringify(answer));
  const text = answer.result.content.filter((part) => part.type === "text").map((part) => part.text).join("\n");
  fs.writeFileSync(path.join(out, `${page}.txt`), text);
}
await call("tools/call", { name: "browser_close", arguments: {} });
mcp.kill();
server.close();
