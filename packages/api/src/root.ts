import { instanceConfigRouter } from "./routers/instance-config";
import { orgRouter } from "./routers/org";
import { projectRouter } from "./routers/project";
import { runRouter } from "./routers/run";
import { scenarioRouter } from "./routers/scenario";
import { targetRouter } from "./routers/target";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  org: orgRouter,
  project: projectRouter,
  target: targetRouter,
  instanceConfig: instanceConfigRouter,
  scenario: scenarioRouter,
  run: runRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
