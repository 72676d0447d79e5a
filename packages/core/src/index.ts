export * from "./histogram";
export * from "./metrics";
export * from "./monitor";
export * from "./run-result";
export * from "./scenario";
export * from "./thresholds";
