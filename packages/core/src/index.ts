export * from "./metrics";
export * from "./histogram";
export * from "./scenario";
export * from "./run-result";
