import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseAllowList } from "@benchboard/core/address";
import { afterEach, describe, expect, it } from "vitest";
import { applyServerConfig } from "./server-config";

// A real config hook on 127.0.0.1 answering with what a hostile or careless target might send.
const POLICY = { allowList: parseAllowList("127.0.0.1").list };

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

async function hookAnswering(body: string): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}/admin/config`;
}

describe("the config hook's answer", () => {
  it("is recorded as the config in effect", async () => {
    const url = await hookAnswering('{"buffer_size":20000,"pool":{"initial":15000}}');
    expect(await applyServerConfig(url, { buffer_size: 20000 }, POLICY)).toEqual({
      buffer_size: 20000,
      pool: { initial: 15000 },
    });
  });

  it("with a reserved key at any depth is recorded as unreadable, never stored as sent", async () => {
    const url = await hookAnswering('{"buffer_size":1,"pool":[{"constructor":{"x":1}}]}');
    const recorded = await applyServerConfig(url, null, POLICY);
    expect(recorded).toEqual({ unreadable: "the config hook's answer has a reserved key at pool.0.constructor" });
  });
});
