import type { RouterInputs, RouterOutputs } from "@benchboard/api";
import { type KnobType, type KnobValue, knobType, parseKnobValue, ZInstanceConfigFields } from "@benchboard/core";
import { nextRowKey, numText, readNumbers } from "~/app/_components/form-kit/values";
import { zodFieldErrors } from "~/app/_components/form-kit/zod-errors";

/**
 * The instance-config editor's text fields and the API input they stand for, without React.
 * Memory is typed in GiB and stored in MiB; knobs keep their type (number, boolean, text).
 */

export type Config = RouterOutputs["instanceConfig"]["byId"];
export type ConfigFields = Omit<RouterInputs["instanceConfig"]["create"], "projectId">;

export const MIB_PER_GIB = 1024;

export interface KnobRow {
  key: number;
  name: string;
  type: KnobType;
  value: string;
}

export interface ConfigFormState {
  name: string;
  instanceType: string;
  vcpu: string;
  memoryGiB: string;
  cpuLimit: string;
  replicas: string;
  knobs: KnobRow[];
}

export function stateFromConfig(config: Config | undefined): ConfigFormState {
  return {
    name: config?.name ?? "",
    instanceType: config?.instanceType ?? "",
    vcpu: numText(config?.vcpu),
    memoryGiB: config?.memoryMb != null ? String(+(config.memoryMb / MIB_PER_GIB).toFixed(3)) : "",
    cpuLimit: numText(config?.cpuLimit),
    replicas: numText(config?.replicas ?? 1),
    knobs: Object.entries(config?.knobs ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, v]) => ({ key: nextRowKey(), name, type: knobType(v as KnobValue), value: String(v) })),
  };
}

/** The API input from the form, or null with every problem recorded at its field. */
export function fieldsFromState(state: ConfigFormState, errors: Record<string, string>): ConfigFields | null {
  const before = Object.keys(errors).length;
  const n = readNumbers(
    {
      vcpu: { text: state.vcpu, path: "vcpu" },
      memoryGiB: { text: state.memoryGiB, path: "memoryGiB" },
      cpuLimit: { text: state.cpuLimit, path: "cpuLimit" },
      replicas: { text: state.replicas, path: "replicas", required: true },
    },
    errors,
  );
  const knobs: Record<string, KnobValue> = {};
  state.knobs.forEach((row, i) => {
    const knobName = row.name.trim();
    if (!knobName) {
      errors[`knobs.${i}.name`] = "knob name is required";
      return;
    }
    if (knobName in knobs) {
      errors[`knobs.${i}.name`] = "each knob once";
      return;
    }
    const parsed = parseKnobValue(row.type, row.value);
    if ("error" in parsed) errors[`knobs.${i}.value`] = parsed.error;
    else knobs[knobName] = parsed.value;
  });
  const fields: ConfigFields = {
    name: state.name,
    instanceType: state.instanceType.trim() || null,
    vcpu: n.vcpu ?? null,
    memoryMb: n.memoryGiB === undefined ? null : Math.round(n.memoryGiB * MIB_PER_GIB),
    cpuLimit: n.cpuLimit ?? null,
    replicas: n.replicas ?? 1,
    knobs,
  };
  // The server's own schema, on what would be sent; memory is typed in GiB, so its message goes there.
  for (const [path, message] of Object.entries(zodFieldErrors(ZInstanceConfigFields, fields))) {
    const at = path === "memoryMb" ? "memoryGiB" : path;
    if (!(at in errors)) errors[at] = message;
  }
  return Object.keys(errors).length > before ? null : fields;
}

/** The form's values without row keys: two states with equal snapshots hold the same config. */
export function formSnapshot(state: ConfigFormState): string {
  return JSON.stringify({ ...state, knobs: state.knobs.map(({ key: _key, ...row }) => row) });
}
