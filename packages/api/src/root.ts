import { agentRouter } from "./routers/agent";
import { apiTokenRouter } from "./routers/api-token";
import { authRouter } from "./routers/auth";
import { comparisonRouter } from "./routers/comparison";
import { execRunRouter } from "./routers/exec-run";
import { installRouter } from "./routers/install";
import { instanceConfigRouter } from "./routers/instance-config";
import { memberRouter } from "./routers/member";
import { notificationRouter } from "./routers/notification";
import { orgRouter } from "./routers/org";
import { projectRouter } from "./routers/project";
import { runRouter } from "./routers/run";
import { scenarioRouter } from "./routers/scenario";
import { shareRouter } from "./routers/share";
import { sweepRouter } from "./routers/sweep";
import { targetRouter } from "./routers/target";
import { trendRouter } from "./routers/trend";
import { uploadRouter } from "./routers/upload";
import { workerRouter } from "./routers/worker";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  auth: authRouter,
  org: orgRouter,
  install: installRouter,
  member: memberRouter,
  apiToken: apiTokenRouter,
  agent: agentRouter,
  project: projectRouter,
  target: targetRouter,
  instanceConfig: instanceConfigRouter,
  scenario: scenarioRouter,
  run: runRouter,
  upload: uploadRouter,
  execRun: execRunRouter,
  worker: workerRouter,
  comparison: comparisonRouter,
  sweep: sweepRouter,
  share: shareRouter,
  trend: trendRouter,
  notification: notificationRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
