import { apiTokenRouter } from "./routers/api-token";
import { authRouter } from "./routers/auth";
import { instanceConfigRouter } from "./routers/instance-config";
import { memberRouter } from "./routers/member";
import { orgRouter } from "./routers/org";
import { projectRouter } from "./routers/project";
import { runRouter } from "./routers/run";
import { scenarioRouter } from "./routers/scenario";
import { targetRouter } from "./routers/target";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  auth: authRouter,
  org: orgRouter,
  member: memberRouter,
  apiToken: apiTokenRouter,
  project: projectRouter,
  target: targetRouter,
  instanceConfig: instanceConfigRouter,
  scenario: scenarioRouter,
  run: runRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
