// A client on the official TypeScript MCP SDK drives "teammemd mcp" over
// stdio, as an agent would: it lists the tools, reads, searches, writes
// with the sha256 it read, and checks that a stale sha256 and a secret
// are refused. cmd/teammemd/mcp_test.go runs it (TEAMMEMD_TEST_MCP=1) with
//   MCP_NODE_DIR  the directory npm ci installed package-lock.json into
//   MCP_BIN       the teammemd binary
//   MCP_DIR       a team directory holding MEMORY.md and db/postgres.md
//   MCP_SECRET    a cloud access key the scanner flags
"use strict";

const assert = require("node:assert/strict");
const path = require("node:path");
const { createRequire } = require("node:module");

const sdk = createRequire(path.join(process.env.MCP_NODE_DIR, "package.json"));
const { Client } = sdk("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = sdk("@modelcontextprotocol/sdk/client/stdio.js");

const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("");

async function main() {
  const transport = new StdioClientTransport({
    command: process.env.MCP_BIN,
    args: ["mcp", "--dir", process.env.MCP_DIR, "--repo", "acme/app"],
    env: process.env,
    stderr: "inherit",
  });
  const client = new Client({ name: "teammemd-e2e", version: "1.0.0" });
  await client.connect(transport);

  const ok = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    assert.ok(!r.isError, `${name} failed: ${text(r)}`);
    return r;
  };
  const refused = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    assert.ok(r.isError, `${name} succeeded, want it refused: ${text(r)}`);
    return text(r);
  };

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(),
    ["memory", "memory_delete", "memory_history", "memory_list", "memory_read", "memory_search", "memory_write"]);
  const write = tools.find((t) => t.name === "memory_write");
  assert.deepEqual([...write.inputSchema.required].sort(), ["content", "key"]);

  const list = (await ok("memory_list", {})).structuredContent;
  assert.deepEqual(list.notes.map((n) => n.key), ["MEMORY.md", "db/postgres.md"]);

  const read = (await ok("memory_read", { key: "db/postgres.md" })).structuredContent;
  assert.equal(read.content, "We run PostgreSQL 16.\n");
  assert.match(read.sha256, /^sha256:[0-9a-f]{64}$/);

  const found = (await ok("memory_search", { query: "postgres" })).structuredContent;
  assert.equal(found.hits[0].key, "db/postgres.md");
  assert.equal(found.hits[0].snippet, "We run PostgreSQL 16.");

  const written = (await ok("memory_write", { key: "db/postgres.md", content: "We run PostgreSQL 17.\n", sha256: read.sha256 })).structuredContent;
  const stale = await refused("memory_write", { key: "db/postgres.md", content: "We run PostgreSQL 18.\n", sha256: read.sha256 });
  assert.ok(stale.includes(`current sha256 ${written.sha256}`), `stale write: ${stale}`);
  await refused("memory_delete", { key: "db/postgres.md", sha256: read.sha256 });

  await ok("memory_write", { key: "notes/ci.md", content: "CI runs make test.\n" });
  const again = await refused("memory_write", { key: "notes/ci.md", content: "CI runs make check.\n" });
  assert.match(again, /already exists/);

  const secret = await refused("memory_write", { key: "deploy.md", content: `aws_access_key_id = ${process.env.MCP_SECRET}\n` });
  assert.match(secret, /aws-access-token/);
  assert.ok(!secret.includes(process.env.MCP_SECRET), "the refusal shows the secret");

  const created = text(await ok("memory", { command: "create", path: "/memories/notes/review.md", file_text: "Review every PR.\n" }));
  assert.equal(created, "File created successfully at: /memories/notes/review.md");
  const viewed = text(await ok("memory", { command: "view", path: "/memories/notes/review.md" }));
  assert.equal(viewed, "Here's the content of /memories/notes/review.md with line numbers:\n     1\tReview every PR.\n     2\t");
  const memSecret = await refused("memory", { command: "create", path: "/memories/keys.md", file_text: `key ${process.env.MCP_SECRET}\n` });
  assert.match(memSecret, /aws-access-token/);
  assert.match(await refused("memory", { command: "view", path: "/memories/../etc/passwd" }), /not a valid memory path/);

  const { resources } = await client.listResources();
  const uri = "teammemd://acme/app/~/notes/ci.md";
  assert.ok(resources.some((r) => r.uri === uri), `resources: ${resources.map((r) => r.uri)}`);
  const res = await client.readResource({ uri });
  assert.equal(res.contents[0].text, "CI runs make test.\n");

  await client.close();
  console.log("mcp e2e: ok");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
