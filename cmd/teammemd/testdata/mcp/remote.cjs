// A client on the official TypeScript MCP SDK drives the /mcp endpoint of
// "teammemd serve" over streamable HTTP, as a remote agent would: it lists
// the tools, writes, reads and searches, and checks that a secret, a stale
// sha256, a write with a read-only token and a repo without a grant are
// refused. cmd/teammemd/mcpremote_test.go runs it (TEAMMEMD_TEST_MCP=1) with
//   MCP_NODE_DIR    the directory npm ci installed package-lock.json into
//   MCP_URL         the server's /mcp
//   MCP_TOKEN       a token that writes every repo
//   MCP_READ_TOKEN  a token that reads acme/app only
//   MCP_SECRET      a cloud access key the scanner flags
"use strict";

const assert = require("node:assert/strict");
const path = require("node:path");
const { createRequire } = require("node:module");

const sdk = createRequire(path.join(process.env.MCP_NODE_DIR, "package.json"));
const { Client } = sdk("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = sdk("@modelcontextprotocol/sdk/client/streamableHttp.js");

const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("");

async function connect(token) {
  const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "teammemd-remote-e2e", version: "1.0.0" });
  await client.connect(transport);
  const call = (name, args) => client.callTool({ name, arguments: args });
  client.ok = async (name, args) => {
    const r = await call(name, args);
    assert.ok(!r.isError, `${name} failed: ${text(r)}`);
    return r.structuredContent;
  };
  client.refused = async (name, args) => {
    const r = await call(name, args);
    assert.ok(r.isError, `${name} succeeded, want it refused: ${text(r)}`);
    return text(r);
  };
  return client;
}

async function main() {
  const owner = await connect(process.env.MCP_TOKEN);
  const { tools } = await owner.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(),
    ["memory", "memory_delete", "memory_history", "memory_list", "memory_read", "memory_search", "memory_write"]);

  const repo = "acme/app";
  const first = await owner.ok("memory_write", { repo, key: "db/postgres.md", content: "We run PostgreSQL 16.\n" });
  await owner.ok("memory_write", { repo: "acme/secret-plans", key: "MEMORY.md", content: "# Plans\n" });

  const read = await owner.ok("memory_read", { repo, key: "db/postgres.md" });
  assert.equal(read.content, "We run PostgreSQL 16.\n");
  assert.equal(read.sha256, first.sha256);
  assert.match(read.sha256, /^sha256:[0-9a-f]{64}$/);

  const found = await owner.ok("memory_search", { repo, query: "postgres" });
  assert.equal(found.hits[0].key, "db/postgres.md");
  assert.equal(found.hits[0].snippet, "We run PostgreSQL 16.");

  const written = await owner.ok("memory_write", { repo, key: "db/postgres.md", content: "We run PostgreSQL 17.\n", sha256: read.sha256 });
  const stale = await owner.refused("memory_write", { repo, key: "db/postgres.md", content: "We run PostgreSQL 18.\n", sha256: read.sha256 });
  assert.ok(stale.includes(`current sha256 ${written.sha256}`), `stale write: ${stale}`);

  const secret = await owner.refused("memory_write", { repo, key: "deploy.md", content: `aws_access_key_id = ${process.env.MCP_SECRET}\n` });
  assert.match(secret, /aws-access-token/);
  assert.ok(!secret.includes(process.env.MCP_SECRET), "the refusal shows the secret");

  const reader = await connect(process.env.MCP_READ_TOKEN);
  assert.equal((await reader.ok("memory_read", { key: "db/postgres.md" })).content, "We run PostgreSQL 17.\n");
  assert.match(await reader.refused("memory_write", { repo, key: "ci.md", content: "CI\n" }), /can read this repo but not write it/);

  const listed = await reader.ok("memory_list", {});
  assert.equal(listed.repo, repo);
  const hidden = await reader.refused("memory_read", { repo: "acme/secret-plans", key: "MEMORY.md" });
  const missing = await reader.refused("memory_read", { repo: "acme/no-such-repo", key: "MEMORY.md" });
  assert.equal(hidden.replace("secret-plans", "X"), missing.replace("no-such-repo", "X"));
  for (const [name, args] of [["memory_list", {}], ["memory_search", { query: "plans" }], ["memory_read", { repo: "acme/no-such-repo", key: "MEMORY.md" }]]) {
    const r = await reader.callTool({ name, arguments: args });
    assert.ok(!JSON.stringify(r).includes("secret-plans"), `${name} names a repo the token cannot read: ${JSON.stringify(r)}`);
  }

  await owner.close();
  await reader.close();
  console.log("mcp remote e2e: ok");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
