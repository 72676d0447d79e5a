export * from "./data-table";
export * from "./primitives";
