export * from "./primitives";
