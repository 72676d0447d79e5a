import { publicInstallSettings, ZInstallSettingsInput, ZOrgCapsPatch } from "@benchboard/core";
import {
  isInstallOrganization,
  listOrganizationsForOperator,
  retentionPreview,
  updateInstallSettings,
  updateOrganizationCaps,
} from "@benchboard/db";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { installSettingsFor } from "../launch-safety";
import { type Context, orgProcedure, ownerProcedure, router } from "../trpc";

/** Only owners of the install's own organization are the operator. */
async function assertOperator(ctx: Context & { orgId: string }) {
  if (ctx.role !== "owner" || !(await isInstallOrganization(ctx.db, ctx.orgId))) {
    throw new TRPCError({
      code: "FORBIDDEN",
      message: "install settings belong to the operator: owners of the install's own organization",
    });
  }
}

const SUGGESTED_RETENTION_DAYS = 90;

export const ZUpdateOrgCapsInput = z
  .object({
    orgId: z
      .string({ error: "choose an organization" })
      .max(64, "not an organization id")
      .regex(/^[A-Za-z0-9_-]+$/, "not an organization id"),
    caps: ZOrgCapsPatch.strict().refine((caps) => Object.values(caps).some((v) => v !== undefined), {
      message: "change at least one cap",
    }),
  })
  .strict();

export const installRouter = router({
  /** Whether the caller is the operator (the Settings page shows the operator section only then). */
  role: orgProcedure.query(async ({ ctx }) => {
    const installOrganization = await isInstallOrganization(ctx.db, ctx.orgId);
    return {
      operator: ctx.role === "owner" && installOrganization,
      /** The install's own organization: only it may read the worker host's processes. */
      installOrganization,
    };
  }),
  /** The install's settings: allowed private targets, sign-up, default caps for new organizations. */
  get: ownerProcedure.query(async ({ ctx }) => {
    await assertOperator(ctx);
    return publicInstallSettings(await installSettingsFor(ctx));
  }),
  /**
   * Detail retention (BENCHBOARD_RETAIN_DETAIL_DAYS): the runs it trims now and the bytes that
   * frees; when it is off, what keeping 90 days would free.
   */
  retention: ownerProcedure.query(async ({ ctx }) => {
    await assertOperator(ctx);
    const days = ctx.retainDetailDays ?? null;
    const preview = await retentionPreview(ctx.db, days ?? SUGGESTED_RETENTION_DAYS);
    return { days, previewDays: preview.days, runs: preview.runs, bytes: preview.bytes };
  }),
  /** Every organization of the install with its members, runs and caps (the operator's list). */
  organizations: ownerProcedure.query(async ({ ctx }) => {
    await assertOperator(ctx);
    return listOrganizationsForOperator(ctx.db);
  }),
  /** Change one organization's caps; its next launch is checked against them. */
  updateOrgCaps: ownerProcedure.input(ZUpdateOrgCapsInput).mutation(async ({ ctx, input }) => {
    await assertOperator(ctx);
    return updateOrganizationCaps(ctx.db, input.orgId, input.caps);
  }),
  update: ownerProcedure.input(ZInstallSettingsInput).mutation(async ({ ctx, input }) => {
    await assertOperator(ctx);
    const settings = await updateInstallSettings(ctx.db, input, {
      updatedById: ctx.userId,
      fromEnv: ctx.install ?? undefined,
    });
    return publicInstallSettings(settings);
  }),
});
