import { ZMonitorConfig, ZScenarioSpec } from "@benchboard/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureLocalOrganization } from "../queries/org";
import { createTestDatabase, type TestDatabase } from "../testing";
import { GATEWAY_OVERHEAD_STAGES, referenceProjects, seedReferenceTargets } from "./reference-targets";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

describe("reference target demo data", () => {
  it("creates every project, target, config and scenario once, with valid specs and monitors", async () => {
    const org = await ensureLocalOrganization(t.db);
    await seedReferenceTargets(t.db, org.id);
    const renamed = await t.db.scenario.findFirstOrThrow({ where: { orgId: org.id } });
    await t.db.scenario.update({ where: { id: renamed.id }, data: { description: "changed by the user" } });
    await seedReferenceTargets(t.db, org.id);

    const expected = referenceProjects();
    expect(await t.db.project.count({ where: { orgId: org.id } })).toBe(expected.length);
    expect(await t.db.target.count({ where: { orgId: org.id } })).toBe(expected.length);
    expect(await t.db.scenario.count({ where: { orgId: org.id } })).toBe(expected.flatMap((p) => p.scenarios).length);
    expect(await t.db.instanceConfig.count({ where: { orgId: org.id } })).toBe(
      expected.flatMap((p) => p.configs).length,
    );
    // Seeding again keeps what the user changed.
    expect((await t.db.scenario.findUniqueOrThrow({ where: { id: renamed.id } })).description).toBe(
      "changed by the user",
    );

    for (const s of await t.db.scenario.findMany({ where: { orgId: org.id } })) {
      expect(ZScenarioSpec.safeParse(s.spec).success, s.name).toBe(true);
    }
    for (const target of await t.db.target.findMany({ where: { orgId: org.id } })) {
      for (const m of target.monitors as unknown[]) expect(ZMonitorConfig.safeParse(m).success).toBe(true);
      expect(JSON.stringify(target.monitors)).not.toContain("password");
      expect(target.configApplyUrl).toBe(`${target.baseUrl}/admin/config`);
    }
    // The gateway declares its own stages as overhead; the wait on the provider is not among them.
    const gateway = await t.db.target.findFirstOrThrow({ where: { orgId: org.id, name: "gateway" } });
    expect(gateway.overheadStages).toEqual(GATEWAY_OVERHEAD_STAGES);
    expect(gateway.overheadStages).not.toContain("upstream_request");
    expect((await t.db.target.findFirstOrThrow({ where: { orgId: org.id, name: "chat" } })).overheadStages).toEqual([]);
  });
});
