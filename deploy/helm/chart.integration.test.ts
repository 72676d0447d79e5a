import { spawnSync } from "node:child_process";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { matchPublicUrl, publicUrls } from "../../apps/web/src/server/public-url";
import { ensureSchemas } from "./schemas";
import { CHART_DIR, ensureTool, HELM_DIR, toolVersions } from "./tools";

// The Helm chart without a cluster: `helm lint` and `helm template` for several values files,
// and every rendered object validated by kubeconform against the pinned Kubernetes release's
// OpenAPI schemas and KEDA's CRD schemas (no field a schema does not name), then what the
// objects must say to run Benchboard: hooks in order, probes the app answers, a grace period
// above the worker's drain, autoscaling on the agents' queue.

const VALUES = {
  defaults: path.join(HELM_DIR, "test-values/defaults.yaml"),
  full: path.join(HELM_DIR, "test-values/ingress-agents-keda.yaml"),
  existing: path.join(HELM_DIR, "test-values/existing-secret.yaml"),
};

let helm = "";
let kubeconform = "";
let schemaDir = "";

beforeAll(() => {
  helm = ensureTool("helm");
  kubeconform = ensureTool("kubeconform");
  schemaDir = ensureSchemas();
});

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: rendered manifests are read field by field below
  spec?: any;
  stringData?: Record<string, string>;
}

/** The pinned Kubernetes release, which helm renders for and kubeconform names. */
const kubeVersion = () => toolVersions().KUBERNETES_VERSION.replace(/^v/, "");

function run(bin: string, args: string[], input?: string) {
  const res = spawnSync(bin, args, { input, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

function render(valuesFile: string | null, set: string[] = []) {
  const args = ["template", "bench", CHART_DIR, "--namespace", "perf", "--kube-version", kubeVersion()];
  if (valuesFile) args.push("-f", valuesFile);
  for (const item of set) args.push("--set", item);
  return run(helm, args);
}

function renderOk(valuesFile: string): { yaml: string; objects: K8sObject[] } {
  const res = render(valuesFile);
  expect(res.status, res.stderr).toBe(0);
  const objects = parseAllDocuments(res.stdout)
    .map((doc) => doc.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
  return { yaml: res.stdout, objects };
}

interface KubeconformReport {
  resources: { filename: string; kind: string; name: string; version: string; status: string; msg: string }[];
  summary: { valid: number; invalid: number; errors: number; skipped: number };
}

function validate(yaml: string): KubeconformReport {
  const res = run(
    kubeconform,
    [
      "-strict",
      "-summary",
      "-verbose",
      "-output",
      "json",
      "-kubernetes-version",
      kubeVersion(),
      "-schema-location",
      `${schemaDir}/{{ .ResourceKind }}{{ .KindSuffix }}.json`,
      "-",
    ],
    yaml,
  );
  expect(res.stderr).toBe("");
  return JSON.parse(res.stdout) as KubeconformReport;
}

const find = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind} ${name}`).toBeDefined();
  return found as K8sObject;
};
const kinds = (objects: K8sObject[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
/** A container's plain environment variables (not those read from Secrets or fields). */
const envOf = (container: { env?: { name: string; value?: string }[] }): Record<string, string> =>
  Object.fromEntries((container.env ?? []).flatMap((e) => (e.value === undefined ? [] : [[e.name, e.value] as const])));

describe("helm lint", () => {
  it.each(Object.entries(VALUES))("passes with the %s values", (_name, file) => {
    const res = run(helm, ["lint", "--strict", "--kube-version", kubeVersion(), CHART_DIR, "-f", file]);
    expect(res.status, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain("0 chart(s) failed");
  });
});

describe("every rendered object is valid against the Kubernetes and KEDA schemas", () => {
  it.each(Object.entries(VALUES))("with the %s values", (_name, file) => {
    const { yaml, objects } = renderOk(file);
    const report = validate(yaml);
    expect(report.resources.filter((r) => r.status !== "statusValid")).toEqual([]);
    expect(report.summary).toEqual({ valid: objects.length, invalid: 0, errors: 0, skipped: 0 });
  });

  it("and the schemas refuse an unknown field, a wrong type and a misspelt KEDA field", () => {
    const { objects } = renderOk(VALUES.full);
    const deployment = structuredClone(find(objects, "Deployment", "bench-benchboard-worker"));
    deployment.spec.replica = 2;
    const service = structuredClone(find(objects, "Service", "bench-benchboard-web"));
    service.spec.ports[0].port = "three thousand";
    const scaled = structuredClone(find(objects, "ScaledObject", "bench-benchboard-agent-k8s"));
    scaled.spec.minReplicas = 0;
    // Deep in a pod template, reached through the OpenAPI document's references.
    const web = structuredClone(find(objects, "Deployment", "bench-benchboard-web"));
    web.spec.template.spec.containers[0].imagePullPolicyy = "Always";
    const yaml = [deployment, service, scaled, web].map((o) => JSON.stringify(o)).join("\n---\n");
    const report = validate(yaml);
    expect(report.summary).toMatchObject({ valid: 0, invalid: 4 });
    const messages = report.resources.map((r) => `${r.kind}: ${r.msg}`).join("\n");
    expect(messages).toMatch(/Deployment: .*replica/);
    expect(messages).toMatch(/Service: .*port/);
    expect(messages).toMatch(/ScaledObject: .*minReplicas/);
    expect(messages).toMatch(/Deployment: .*imagePullPolicyy/);
  });
});

describe("the defaults", () => {
  it("render the web app, its service, the workers, the migration job and the Secret, and nothing optional", () => {
    const { objects } = renderOk(VALUES.defaults);
    expect(kinds(objects)).toEqual([
      "Deployment/bench-benchboard-web",
      "Deployment/bench-benchboard-worker",
      "Job/bench-benchboard-migrate",
      "PodDisruptionBudget/bench-benchboard-web",
      "PodDisruptionBudget/bench-benchboard-worker",
      "Secret/bench-benchboard-env",
      "Service/bench-benchboard-web",
    ]);
  });

  it("migrate before the web app and workers roll out, after the Secret they read exists", () => {
    const { objects } = renderOk(VALUES.defaults);
    const job = find(objects, "Job", "bench-benchboard-migrate");
    const secret = find(objects, "Secret", "bench-benchboard-env");
    expect(job.metadata.annotations?.["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    expect(secret.metadata.annotations?.["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    expect(Number(secret.metadata.annotations?.["helm.sh/hook-weight"])).toBeLessThan(
      Number(job.metadata.annotations?.["helm.sh/hook-weight"]),
    );
    const container = job.spec.template.spec.containers[0];
    expect([container.workingDir, ...container.command]).toEqual([
      "/app/packages/db",
      "node",
      "--import",
      "tsx",
      "src/migrate-cli.ts",
    ]);
    expect(container.envFrom).toEqual([{ secretRef: { name: "bench-benchboard-env" } }]);
    expect(Object.keys(secret.stringData ?? {}).sort()).toEqual(["BENCHBOARD_SECRET_KEY", "DATABASE_URL", "REDIS_URL"]);
  });

  it("probe the web app with a host name it answers for, and listen on every interface", () => {
    const { objects } = renderOk(VALUES.defaults);
    const web = find(objects, "Deployment", "bench-benchboard-web").spec.template.spec;
    const container = web.containers[0];
    const configured = envOf(container).BENCHBOARD_PUBLIC_URL ?? "";
    expect(configured.split(",")).toEqual([
      "https://bench.example.com",
      "http://bench-benchboard-web.perf.svc.cluster.local:3000",
    ]);
    // What the app itself decides for a Host header (one it does not answer for gets 421).
    const appUrls = publicUrls(configured, "0.0.0.0:3000", "3000");
    expect(matchPublicUrl("bench.example.com", appUrls)?.href).toBe("https://bench.example.com/");
    expect(matchPublicUrl("10.0.0.7:3000", appUrls), "a pod address").toBeNull();
    for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
      const get = container[probe].httpGet;
      expect(get.path, probe).toBe("/api/health");
      const host = get.httpHeaders.find((h: { name: string }) => h.name === "Host")?.value;
      expect(matchPublicUrl(host, appUrls)?.href, probe).toBe(
        "http://bench-benchboard-web.perf.svc.cluster.local:3000/",
      );
    }
    expect(container.args).toEqual(["-p", "3000", "-H", "0.0.0.0"]);
    expect(find(objects, "Service", "bench-benchboard-web").spec.ports[0]).toMatchObject({ port: 3000 });
    expect(web.securityContext).toMatchObject({ runAsNonRoot: true });
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
  });

  it("give a worker more time to terminate than it takes to drain, and probe its loopback health endpoint", () => {
    const { objects } = renderOk(VALUES.defaults);
    const pod = find(objects, "Deployment", "bench-benchboard-worker").spec.template.spec;
    const env = envOf(pod.containers[0]);
    expect(Number(env.BENCHBOARD_WORKER_SHUTDOWN_S)).toBe(20);
    expect(pod.terminationGracePeriodSeconds).toBe(35);
    expect(pod.containers[0].livenessProbe.exec.command).toEqual([
      "curl",
      "-fsS",
      "-o",
      "/dev/null",
      `http://127.0.0.1:${env.BENCHBOARD_WORKER_HEALTH_PORT}/`,
    ]);
  });
});

describe("ingress, agents and KEDA on", () => {
  it("route the public host with TLS and run one agent pool per label, scaled on its queue", () => {
    const { objects } = renderOk(VALUES.full);
    const ingress = find(objects, "Ingress", "bench-benchboard-web");
    expect(ingress.spec.rules[0].host).toBe("bench.example.com");
    expect(ingress.spec.tls).toEqual([{ hosts: ["bench.example.com"], secretName: "bench-tls" }]);
    expect(ingress.spec.ingressClassName).toBe("nginx");

    const worker = find(objects, "Deployment", "bench-benchboard-worker").spec;
    expect(worker.replicas).toBe(3);
    expect(worker.template.spec.terminationGracePeriodSeconds).toBe(60);
    expect(envOf(worker.template.spec.containers[0]).BENCHBOARD_WORKER_SHUTDOWN_S).toBe("45");

    const auth = find(objects, "TriggerAuthentication", "bench-benchboard-agent-queue");
    expect(auth.spec.secretTargetRef).toEqual([
      { parameter: "token", name: "bench-benchboard-agent-token", key: "BENCHBOARD_AGENT_TOKEN" },
    ]);
    expect(find(objects, "Secret", "bench-benchboard-agent-token").stringData).toEqual({
      BENCHBOARD_AGENT_TOKEN: "bba_example-agent-token",
    });

    for (const [label, suffix, capacity] of [
      ["k8s", "k8s", 1],
      ["eu.gateway_2", "eu-gateway-2", 2],
    ] as const) {
      const deployment = find(objects, "Deployment", `bench-benchboard-agent-${suffix}`);
      // KEDA owns the replica count.
      expect(deployment.spec.replicas).toBeUndefined();
      const container = deployment.spec.template.spec.containers[0];
      expect(container.args.slice(0, 6)).toEqual([
        "--name",
        "$(POD_NAME)",
        "--label",
        label,
        "--capacity",
        `${capacity}`,
      ]);
      expect(envOf(container).BENCHBOARD_URL).toBe("http://bench-benchboard-web.perf.svc.cluster.local:3000");
      expect(container.env.find((e: { name: string }) => e.name === "BENCHBOARD_AGENT_TOKEN").valueFrom).toEqual({
        secretKeyRef: { name: "bench-benchboard-agent-token", key: "BENCHBOARD_AGENT_TOKEN" },
      });

      const scaled = find(objects, "ScaledObject", `bench-benchboard-agent-${suffix}`);
      expect(scaled.spec.scaleTargetRef).toEqual({ name: `bench-benchboard-agent-${suffix}` });
      expect(scaled.spec).toMatchObject({ minReplicaCount: 0, maxReplicaCount: 10 });
      const [trigger] = scaled.spec.triggers;
      expect(trigger.type).toBe("metrics-api");
      expect(trigger.authenticationRef).toEqual({ name: "bench-benchboard-agent-queue" });
      const url = new URL(trigger.metadata.url);
      expect(url.origin).toBe("http://bench-benchboard-web.perf.svc.cluster.local:3000");
      expect(url.pathname).toBe("/api/v1/agent/queue");
      expect(url.searchParams.get("label")).toBe(label);
      // One agent per `capacity` shards waiting or running: a 10-shard run on `k8s` (activeShards
      // 10) asks for ceil(10 / 1) = 10 agents, and none once it has ended (activeShards 0).
      expect(trigger.metadata).toMatchObject({
        valueLocation: "activeShards",
        targetValue: `${capacity}`,
        authMode: "bearer",
        format: "json",
      });
    }
    const eu = find(objects, "Deployment", "bench-benchboard-agent-eu-gateway-2").spec.template.spec.containers[0];
    expect(eu.args.slice(6)).toEqual(["--max-rate", "2000", "--max-connections", "100", "--allow-env", "GATEWAY_KEY"]);
    expect(eu.envFrom).toEqual([{ secretRef: { name: "gateway-key" } }]);
  });
});

describe("an existing Secret", () => {
  it("is used as is: the chart creates no Secret and every process reads the named one", () => {
    const { objects } = renderOk(VALUES.existing);
    expect(objects.filter((o) => o.kind === "Secret")).toEqual([]);
    for (const name of ["bench-benchboard-web", "bench-benchboard-worker"]) {
      expect(find(objects, "Deployment", name).spec.template.spec.containers[0].envFrom).toEqual([
        { secretRef: { name: "benchboard-env" } },
      ]);
    }
    expect(find(objects, "Job", "bench-benchboard-migrate").spec.template.spec.containers[0].envFrom).toEqual([
      { secretRef: { name: "benchboard-env" } },
    ]);
    const agent = find(objects, "Deployment", "bench-benchboard-agent-lab");
    expect(agent.spec.replicas).toBe(2);
    expect(
      agent.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === "BENCHBOARD_AGENT_TOKEN")
        .valueFrom,
    ).toEqual({ secretKeyRef: { name: "benchboard-agent", key: "token" } });
    expect(objects.some((o) => o.kind === "ScaledObject")).toBe(false);
    expect(
      objects
        .filter((o) => o.kind === "PodDisruptionBudget")
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(["bench-benchboard-agent-lab", "bench-benchboard-worker"]);
  });
});

describe("agent pods", () => {
  it("get names an agent can announce itself by (at most 63 characters), however long the release name", () => {
    const res = render(VALUES.full, ["fullnameOverride=an-install-with-a-very-long-name-for-its-release"]);
    expect(res.status, res.stderr).toBe(0);
    const deployments = parseAllDocuments(res.stdout)
      .map((doc) => doc.toJS() as K8sObject | null)
      .filter((o): o is K8sObject => o?.kind === "Deployment" && o.metadata.name.includes("-agent-"));
    expect(deployments).toHaveLength(2);
    for (const d of deployments) {
      // A pod is <deployment>-<replica set hash, 10>-<5>.
      const longestPodName = `${d.metadata.name}-${"x".repeat(10)}-${"x".repeat(5)}`;
      expect(longestPodName.length, d.metadata.name).toBeLessThanOrEqual(63);
      expect(longestPodName).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/);
    }
  });
});

describe("bad values", () => {
  it.each([
    ["no public URL", VALUES.defaults, ["publicUrl="], /publicUrl is required/],
    [
      "a public URL with a path",
      VALUES.defaults,
      ["publicUrl=https://bench.example.com/app"],
      /publicUrl: .*\(no path\)/,
    ],
    ["no database URL", VALUES.defaults, ["secrets.databaseUrl="], /secrets\.databaseUrl is required/],
    ["a secret key of 5 bytes", VALUES.defaults, ["secrets.secretKey=c2hvcnQ="], /secrets\.secretKey must be 32 bytes/],
    ["a label agents refuse", VALUES.full, ["agents.pools[0].label=EU West"], /agents\.pools\[0\]\.label: "EU West"/],
    ["agent pools without a token", VALUES.full, ["agents.token.value="], /agents\.token\.value is required/],
    [
      "two pools for one label",
      VALUES.full,
      ["agents.pools[1].label=k8s"],
      /agents\.pools\[1\]\.label: "k8s" gives the same Deployment name/,
    ],
  ] as const)("are refused with the field named: %s", (_case, file, set, message) => {
    const res = render(file, [...set]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toMatch(message);
    expect(res.stdout).toBe("");
  });
});
