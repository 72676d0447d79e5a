import { runSchemaHandler, toFetchResponse } from "@benchboard/api/rest/index";

export function GET() {
  return toFetchResponse(runSchemaHandler());
}
