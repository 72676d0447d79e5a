import { runSchemaHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { otherMethods } from "../../_lib/methods";

export function GET() {
  return toFetchResponse(runSchemaHandler());
}

const other = otherMethods("GET");
export const POST = other.POST;
export const PUT = other.PUT;
export const PATCH = other.PATCH;
export const DELETE = other.DELETE;
export const OPTIONS = other.OPTIONS;
