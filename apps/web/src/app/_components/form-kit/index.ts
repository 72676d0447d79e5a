export * from "./kit";
export * from "./values";
