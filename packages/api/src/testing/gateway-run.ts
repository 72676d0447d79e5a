import { ZRunResultData } from "@benchboard/core";
import { createUploadedRun, type Db } from "@benchboard/db";

/**
 * An uploaded run of a gateway with a server-timing breakdown (ms per stage) on an instance config
 * whose knobs can name hosts: what a shared comparison must show in full, addresses aside.
 * `knobs` come after `buffer_size`; `stageCounts` also stores the breakdown as stages (mean and
 * count), as an upload carrying them does. Returns the run's id.
 */
export async function uploadGatewayRun(
  db: Db,
  orgId: string,
  projectId: string,
  options: {
    stagesMs: { db: number; queue: number; render: number };
    bufferSize: number;
    knobs: Record<string, string | number>;
    stageCounts?: boolean;
  },
): Promise<string> {
  const { stagesMs, bufferSize } = options;
  const result = ZRunResultData.parse({
    metrics: {
      requests: 10_000,
      rps: 500,
      latency_p50: 11.2,
      latency_p99: 19.8,
      "stage.db": stagesMs.db,
      "stage.queue": stagesMs.queue,
      "stage.render": stagesMs.render,
    },
    ...(options.stageCounts
      ? {
          stages: {
            db: { meanMs: stagesMs.db, count: 10_000 },
            queue: { meanMs: stagesMs.queue, count: 10_000 },
            render: { meanMs: stagesMs.render, count: 10_000 },
          },
        }
      : {}),
  });
  const { run } = await createUploadedRun(db, orgId, {
    projectId,
    source: "upload",
    scenarioName: "checkout",
    target: { name: "gateway", kind: "http", url: "http://gateway.corp.internal:8080" },
    instanceConfig: {
      name: "gateway-large",
      instanceType: "t3.xlarge",
      vcpu: 4,
      knobs: { buffer_size: bufferSize, ...options.knobs },
    },
    scenario: { engine: "http-open", spec: { rate: 500, durationS: 20 } },
    result,
    branch: "main",
  });
  return run.id;
}
