import { runSchemaHandler } from "@benchboard/api/rest/index";
import { documentRoute } from "../../_lib/rest-route";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = documentRoute(runSchemaHandler);
