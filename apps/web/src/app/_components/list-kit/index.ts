export * from "./cells";
export * from "./filter-fields";
export * from "./list-card";
export * from "./list-states";
export * from "./url-params";
export * from "./use-delete-dialog";
export * from "./use-url-params";
