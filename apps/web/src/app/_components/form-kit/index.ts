export * from "./fields";
export * from "./kit";
export * from "./use-dirty-guard";
export * from "./values";
export * from "./zod-errors";
