import { publicInstallSettings, ZInstallSettingsInput } from "@benchboard/core";
import { isInstallOrganization, retentionPreview, updateInstallSettings } from "@benchboard/db";
import { TRPCError } from "@trpc/server";
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
  update: ownerProcedure.input(ZInstallSettingsInput).mutation(async ({ ctx, input }) => {
    await assertOperator(ctx);
    const settings = await updateInstallSettings(ctx.db, input, {
      updatedById: ctx.userId,
      fromEnv: ctx.install ?? undefined,
    });
    return publicInstallSettings(settings);
  }),
});
