import { randomBytes } from "node:crypto";
import { promises as dns } from "node:dns";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type Context, createCaller } from "@benchboard/api";
import { createMailbox, signUpThroughMail } from "@benchboard/api/testing/mailbox";
import { DEFAULT_INSTALL_SETTINGS } from "@benchboard/core";
import { ensureLocalOrganization, signUp } from "@benchboard/db";
import { createTestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { handleRunExecute } from "../src/processors/run-execute";
import { type DnsRecords, startDnsServer } from "./dns-server";

/** A server on loopback that records every request it gets. */
export interface CountingServer {
  url: string;
  port: number;
  hits: string[];
  headers: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

export async function serve(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  host = "127.0.0.1",
  port = 0,
): Promise<CountingServer> {
  const hits: string[] = [];
  const headers: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    headers.push(req.headers);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    hits,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface TenantInstallOptions {
  /** Queue prefix of this suite. */
  prefix: string;
  /** What the operator allows for its own organization. */
  allowedTargets: string[];
  /** What the operator opens to tenants. */
  tenantTargets: string[];
}

/**
 * An install open to sign-ups, as an attacker meets it: a fresh database and queue, a DNS server
 * of the test's own (names, TXT records, rebinding) that the product's lookups use, the install's
 * first account as the operator (who sets the address rules on the operator page's procedure),
 * and a stranger who signed up like anyone, owning an organization of its own. Runs are executed
 * by the worker's own processor, in this process, against the same database.
 */
export async function tenantInstall(options: TenantInstallOptions) {
  const secretKey = randomBytes(32);
  const records = new Map<string, DnsRecords>();
  const dnsServer = await startDnsServer(records);
  const resolver = new dns.Resolver({ timeout: 1_000, tries: 1 });
  resolver.setServers([dnsServer.server]);
  const network: NonNullable<Context["network"]> = {
    lookup: async (host) => (await resolver.resolve4(host)).map((address) => ({ address, family: 4 })),
    resolveTxt: (name) => resolver.resolveTxt(name),
  };
  const t = await createTestDatabase();
  const queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, options.prefix);
  const base: Omit<Context, "orgId" | "userId" | "role"> = {
    db: t.db,
    queue,
    secretKey,
    network,
    install: DEFAULT_INSTALL_SETTINGS,
  };
  const mailbox = createMailbox();
  const anonymous = createCaller({ ...base, orgId: null, userId: null, role: null, mailer: mailbox });

  const op = await signUp(t.db, { email: "operator@example.test", password: "operator password 1" });
  const local = await ensureLocalOrganization(t.db);
  const operatorCtx: Context = { ...base, orgId: local.id, userId: op.id, role: "owner" };
  const operator = createCaller(operatorCtx);
  await operator.install.update({ allowedTargets: options.allowedTargets, tenantTargets: options.tenantTargets });

  // An ordinary sign-up, finished with the mailed confirmation link.
  await signUpThroughMail(anonymous, mailbox, { email: "stranger@example.test", password: "stranger password 1" });
  const user = await t.db.user.findUniqueOrThrow({
    where: { email: "stranger@example.test" },
    include: { memberships: true },
  });
  const strangerOrg = user.memberships[0]!.orgId;
  const strangerCtx: Context = { ...base, orgId: strangerOrg, userId: user.id, role: "owner" };
  const stranger = createCaller(strangerCtx);
  const workerId = `worker-${options.prefix}`;

  return {
    t,
    queue,
    base,
    secretKey,
    network,
    records,
    dnsServer,
    anonymous,
    operator,
    operatorCtx,
    stranger,
    strangerCtx,
    strangerOrg,
    /** The id runs executed here carry. */
    workerId,
    /** Run a queued run with the worker's processor, as a worker would. */
    async execute(runId: string, log: (line: string) => void = () => {}) {
      await handleRunExecute(
        {
          db: t.db,
          workerId,
          log,
          secretKey,
          lookup: network.lookup,
          // Runs here are single and unsharded: nothing follows them on the queue.
          lifecycle: { dispatch: async () => {}, mergeShards: () => null, log },
        },
        { runId },
      );
      return t.db.run.findUniqueOrThrow({ where: { id: runId }, include: { result: true } });
    },
    projectOf(caller: ReturnType<typeof createCaller>) {
      return caller.project.create({ name: `p-${randomBytes(3).toString("hex")}` });
    },
    async close() {
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      await t.drop();
      await dnsServer.close();
    },
  };
}

export type TenantInstall = Awaited<ReturnType<typeof tenantInstall>>;
