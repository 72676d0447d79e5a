import {
  agentTokenCreator,
  createAgentToken,
  listAgents,
  listAgentTokens,
  removeAgent,
  revokeAgentToken,
} from "@benchboard/db";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { memberProcedure, orgProcedure, router } from "../trpc";

export const ZCreateAgentTokenInput = z.object({
  name: z.string().trim().min(1, "name is required").max(80, "name is at most 80 characters"),
});

/**
 * The organization's agents (`benchboard agent` processes in its own network) and the agent
 * tokens they use. Only the organization's own are ever listed.
 */
export const agentRouter = router({
  /** Agents with state (online, busy, offline since …), labels, version and last seen. */
  list: orgProcedure.query(({ ctx }) => listAgents(ctx.db, ctx.orgId)),
  /** Labels offered by the organization's agents, for the launch form's location choice. */
  labels: orgProcedure.query(async ({ ctx }) => {
    const agents = await listAgents(ctx.db, ctx.orgId);
    const labels = new Map<string, { label: string; agents: number; online: number }>();
    for (const a of agents) {
      for (const label of a.labels) {
        const entry = labels.get(label) ?? { label, agents: 0, online: 0 };
        entry.agents++;
        if (a.state !== "offline") entry.online++;
        labels.set(label, entry);
      }
    }
    return [...labels.values()].sort((a, b) => a.label.localeCompare(b.label));
  }),
  /**
   * Remove an offline agent by name (a finished `--once` CI agent, a pod gone for good); an
   * online one is refused. Offline agents also go by themselves after the install's retention.
   */
  remove: memberProcedure
    .input(z.object({ name: z.string().trim().min(1, "name is required").max(63, "name is at most 63 characters") }))
    .mutation(({ ctx, input }) => removeAgent(ctx.db, ctx.orgId, input.name)),
  tokens: memberProcedure.query(({ ctx }) => listAgentTokens(ctx.db, ctx.orgId)),
  /** A token for `benchboard agent`: shown once, stored as a hash, good for the agent routes only. */
  createToken: memberProcedure.input(ZCreateAgentTokenInput).mutation(async ({ ctx, input }) => {
    const { token, record } = await createAgentToken(ctx.db, ctx.orgId, { name: input.name, createdById: ctx.userId });
    return { token, record };
  }),
  /** Revoking stops every agent using the token at its next call. */
  revokeToken: memberProcedure.input(z.object({ id: z.string() })).mutation(async ({ ctx, input }) => {
    if (ctx.role !== "owner") {
      const token = await agentTokenCreator(ctx.db, ctx.orgId, input.id);
      if (token && token.createdById !== ctx.userId) {
        throw new TRPCError({
          code: "FORBIDDEN",
          message: "only the member who created a token, or an owner, can revoke it",
        });
      }
    }
    await revokeAgentToken(ctx.db, ctx.orgId, input.id);
    return { ok: true };
  }),
});
