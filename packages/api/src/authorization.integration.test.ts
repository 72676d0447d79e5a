import { randomBytes } from "node:crypto";
import { createSession, deleteSession, hashToken, signUp } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { TRPCError } from "@trpc/server";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "./root";
import {
  createOrgFixture,
  idsIn,
  type OrgFixture,
  type OrgSnapshot,
  ROLES,
  sessionContext,
  snapshotOrg,
} from "./testing/org-fixture";
import { callProcedure, INPUTS, type Outcome, SIGN_IN, type Who } from "./testing/procedure-inputs";
import type { Context, ProcedureMeta, Role } from "./trpc";

// Who may call what, for every procedure of the router as it is now: the list of procedures is
// read from the router, so a procedure added without a role check, or without an entry below,
// fails here. Real PostgreSQL and a real BullMQ queue (private prefix, no worker).

/** Procedures anyone may call without signing in; each says why. */
const PUBLIC: Record<string, string> = {
  "auth.signUp": "creating an account",
  "auth.confirmSignUp": "finishing a sign-up with the mailed link",
  "auth.signIn": "signing in",
  "auth.signOut": "ends whatever session the request carries",
  "auth.me": "answers null when signed out",
  "auth.installState": "whether the install has an owner yet: what the sign-in page may say about sign-up",
  "auth.invitation": "the invitation page, for the holder of the link",
  "auth.requestPasswordReset": "someone who forgot their password; the answer is the same for any email",
  "auth.passwordReset": "the reset page, for the holder of the emailed link",
  "auth.resetPassword": "setting a new password with the emailed link",
  "share.view": "the public page behind a share link",
};

/** Public procedures that return the organization's data to whoever holds their token. */
const READABLE_WITH_TOKEN = new Set(["share.view", "auth.invitation"]);

/**
 * Refusals other than NOT_FOUND / FORBIDDEN / BAD_REQUEST that another organization's owner may
 * get when using this organization's inputs, and why they reveal nothing.
 */
const OTHER_ORG_REFUSALS: Record<string, { code: TRPCError["code"]; why: string }> = {
  "auth.acceptInvitation": { code: "CONFLICT", why: "the invitation names someone else's email" },
};

/**
 * Procedures whose allowed callers still get a refusal from the procedure itself, and why that is
 * right for a fixture organization (a tenant, never the install's own).
 */
const REFUSED_AFTER_ROLE_CHECK: Record<string, { code: TRPCError["code"]; why: string }> = {
  "install.get": {
    code: "FORBIDDEN",
    why: "install settings are the operator's; a tenant's owner is not the operator",
  },
  "install.update": {
    code: "FORBIDDEN",
    why: "install settings are the operator's; a tenant's owner is not the operator",
  },
  "install.organizations": {
    code: "FORBIDDEN",
    why: "the list of every organization is the operator's; a tenant's owner is not the operator",
  },
  "install.updateOrgCaps": {
    code: "FORBIDDEN",
    why: "only the operator changes an organization's caps; a tenant's owner is not the operator",
  },
  "install.retention": {
    code: "FORBIDDEN",
    why: "detail retention is an install setting: the operator's, not a tenant owner's",
  },
  "target.verify": {
    code: "CONFLICT",
    why: "nothing serves the token at the fixture's origin: the check runs and says so",
  },
};

type CallerKind = "anonymous" | "expired session" | "signed-out session" | Role;
const CALLERS: readonly CallerKind[] = ["anonymous", "expired session", "signed-out session", ...ROLES];
const RANK: Record<Role, number> = { viewer: 0, member: 1, owner: 2 };

interface ProcedureDef {
  _def: { type: "query" | "mutation" | "subscription"; meta?: ProcedureMeta };
}
const PROCEDURES = appRouter._def.procedures as unknown as Record<string, ProcedureDef>;
const PATHS = Object.keys(PROCEDURES).sort();

const describeOutcome = (o: Outcome) => (o.ok ? "success" : `${o.code} (${o.message})`);

/** What a caller must get: refused before the procedure runs, or let through. */
function expectedFor(meta: ProcedureMeta, caller: CallerKind): "UNAUTHORIZED" | "FORBIDDEN" | "allowed" {
  if (!meta.minRole && !meta.signedIn) return "allowed";
  if (caller === "anonymous" || caller === "expired session" || caller === "signed-out session") {
    return "UNAUTHORIZED";
  }
  if (meta.minRole && RANK[caller] < RANK[meta.minRole]) return "FORBIDDEN";
  return "allowed";
}

let t: TestDatabase;
let queue: Queue;
const unique = () => randomBytes(4).toString("hex");
const secretKey = randomBytes(32);
const prefix = `bbauthz-${unique()}`;
/** The other organization, whose owner tries every procedure with this organization's inputs. */
let otherOrg: OrgFixture;

beforeAll(async () => {
  t = await createTestDatabase();
  // The fixtures' targets are on 127.0.0.1, which this install's operator allows.
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix);
  await signUp(t.db, { email: SIGN_IN.email, password: SIGN_IN.password });
  otherOrg = await createOrgFixture(t.db, `other-${unique()}`);
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

const deps = () => ({ db: t.db, queue, secretKey });

/** The context of a request from this kind of caller to the fixture's organization. */
async function contextOf(f: OrgFixture, caller: CallerKind): Promise<{ ctx: Context; who: Who }> {
  let token: string | null = null;
  if (caller === "expired session" || caller === "signed-out session") {
    token = (await createSession(t.db, f.users.member.id)).token;
    if (caller === "expired session") {
      await t.db.session.update({
        where: { tokenHash: hashToken(token) },
        data: { expiresAt: new Date(Date.now() - 1000) },
      });
    } else {
      await deleteSession(t.db, token);
    }
  } else if (caller !== "anonymous") {
    token = f.users[caller].sessionToken;
  }
  const ctx = await sessionContext(deps(), token, f.org.slug);
  const role = caller === "viewer" || caller === "member" || caller === "owner" ? caller : null;
  return {
    ctx,
    who: { kind: caller, orgId: ctx.orgId, email: role ? f.users[role].email : null, role: ctx.role },
  };
}

async function inputFor(path: string, f: OrgFixture, who: Who): Promise<unknown> {
  const build = INPUTS[path];
  if (!build || build === "none") return undefined;
  return build(f, { db: t.db, who });
}

function changes(before: OrgSnapshot, after: OrgSnapshot): string[] {
  return (Object.keys(before) as (keyof OrgSnapshot)[]).filter(
    (key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]),
  );
}

describe("the router's procedures", () => {
  it("each check a role, unless they are on the public allowlist", () => {
    const unchecked = PATHS.filter((p) => {
      const meta = PROCEDURES[p]!._def.meta ?? {};
      return !meta.minRole && !meta.signedIn && !(p in PUBLIC);
    });
    expect(unchecked, `procedures without minRole or signedIn that are not on the PUBLIC allowlist`).toEqual([]);
    const stale = Object.keys(PUBLIC).filter((p) => !PROCEDURES[p] || PROCEDURES[p]._def.meta?.minRole);
    expect(stale, "PUBLIC lists procedures that are gone or check a role").toEqual([]);
  });

  it("each have an input builder in this test, and no builder is left for a procedure that is gone", () => {
    expect(
      PATHS.filter((p) => !(p in INPUTS)),
      "add an input builder",
    ).toEqual([]);
    expect(
      Object.keys(INPUTS).filter((p) => !PROCEDURES[p]),
      "remove the builder",
    ).toEqual([]);
  });
});

describe("authorization matrix: every procedure × anonymous, expired and signed-out sessions, viewer, member, owner, another organization", () => {
  it.each(PATHS)("%s", async (path) => {
    const procedure = PROCEDURES[path]!;
    const meta = procedure._def.meta ?? {};
    expect(INPUTS[path], `no input builder for ${path}`).toBeDefined();
    const isQuery = procedure._def.type === "query";
    const failures: string[] = [];

    // Refusals change nothing, so they share one fixture with the other organization's attempt.
    const shared = await createOrgFixture(t.db);
    const refused = CALLERS.flatMap((caller) => {
      const expected = expectedFor(meta, caller);
      return expected === "allowed" ? [] : [{ caller, expected }];
    });
    const contexts = await Promise.all(refused.map(({ caller }) => contextOf(shared, caller)));
    const before = await snapshotOrg(t.db, shared.org.id);
    for (const [i, { caller, expected }] of refused.entries()) {
      const { ctx, who } = contexts[i]!;
      const outcome = await callProcedure(ctx, path, await inputFor(path, shared, who));
      if (outcome.ok || outcome.code !== expected) {
        failures.push(`${caller}: expected ${expected}, got ${describeOutcome(outcome)}`);
      }
    }
    const afterRefusals = changes(before, await snapshotOrg(t.db, shared.org.id));
    if (afterRefusals.length) failures.push(`refused calls changed the organization's ${afterRefusals.join(", ")}`);

    // Another organization's owner, with this organization's ids and tokens as input (a session
    // of its own, since auth.signOut ends the session it is called with).
    const outsiderSession = await createSession(t.db, otherOrg.users.owner.id);
    const outsiderCtx = await sessionContext(deps(), outsiderSession.token, otherOrg.org.slug);
    const outsiderInput = await inputFor(path, shared, {
      kind: "other organization",
      orgId: outsiderCtx.orgId,
      email: otherOrg.users.owner.email,
      role: outsiderCtx.role,
    });
    const crossed = await callProcedure(outsiderCtx, path, outsiderInput);
    if (crossed.ok) {
      if (!READABLE_WITH_TOKEN.has(path)) {
        // Ids the caller sent may come back (e.g. as "missing"); any other id or data of this
        // organization is a leak.
        const sent = JSON.stringify(outsiderInput ?? null);
        const returned = JSON.stringify(crossed.value ?? null);
        const leaked = [...idsIn(before), ...shared.canaries].filter((v) => returned.includes(v) && !sent.includes(v));
        if (leaked.length) failures.push(`other organization: the result holds this organization's ${leaked}`);
      }
    } else {
      const allowed = ["NOT_FOUND", "FORBIDDEN", "BAD_REQUEST", OTHER_ORG_REFUSALS[path]?.code];
      if (!allowed.includes(crossed.code as TRPCError["code"])) {
        failures.push(
          `other organization: expected NOT_FOUND, FORBIDDEN or BAD_REQUEST, got ${describeOutcome(crossed)}`,
        );
      }
    }
    const afterOutsider = changes(before, await snapshotOrg(t.db, shared.org.id));
    if (afterOutsider.length) {
      failures.push(`other organization changed this organization's ${afterOutsider.join(", ")}`);
    }

    // Callers allowed through: a fresh fixture each for mutations, so a delete cannot starve the next.
    for (const caller of CALLERS) {
      if (expectedFor(meta, caller) !== "allowed") continue;
      const f = isQuery ? shared : await createOrgFixture(t.db);
      const { ctx, who } = await contextOf(f, caller);
      const outcome = await callProcedure(ctx, path, await inputFor(path, f, who));
      const refusal = REFUSED_AFTER_ROLE_CHECK[path];
      if (refusal) {
        if (outcome.ok || outcome.code !== refusal.code) {
          failures.push(`${caller}: expected ${refusal.code} (${refusal.why}), got ${describeOutcome(outcome)}`);
        }
      } else if (!outcome.ok) failures.push(`${caller}: expected success, got ${describeOutcome(outcome)}`);
    }

    expect(failures).toEqual([]);
  });
});
