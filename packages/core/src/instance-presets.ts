/**
 * Common cloud instance types, for filling in an instance config's vCPU and memory. Figures are
 * the providers' published sizes (memory in MiB: 1 GiB = 1024 MiB). Burstable types (AWS t3,
 * GCP e2-medium and smaller, Azure B-series) only sustain a fraction of their vCPUs: worth a note
 * on any run that lands on one.
 */
export type CloudProvider = "aws" | "gcp" | "azure";

export interface InstancePreset {
  provider: CloudProvider;
  /** The provider's name for the type, stored as the config's `instanceType`. */
  instanceType: string;
  vcpu: number;
  memoryMb: number;
  family: string;
  burstable: boolean;
}

const GiB = 1024;

const preset = (
  provider: CloudProvider,
  instanceType: string,
  vcpu: number,
  memoryGiB: number,
  family: string,
  burstable = false,
): InstancePreset => ({ provider, instanceType, vcpu, memoryMb: Math.round(memoryGiB * GiB), family, burstable });

export const INSTANCE_PRESETS: readonly InstancePreset[] = [
  // AWS: burstable general purpose
  preset("aws", "t3.micro", 2, 1, "t3 (burstable)", true),
  preset("aws", "t3.small", 2, 2, "t3 (burstable)", true),
  preset("aws", "t3.medium", 2, 4, "t3 (burstable)", true),
  preset("aws", "t3.large", 2, 8, "t3 (burstable)", true),
  preset("aws", "t3.xlarge", 4, 16, "t3 (burstable)", true),
  preset("aws", "t3.2xlarge", 8, 32, "t3 (burstable)", true),
  // AWS: compute optimized
  preset("aws", "c6i.large", 2, 4, "c6i (compute)"),
  preset("aws", "c6i.xlarge", 4, 8, "c6i (compute)"),
  preset("aws", "c6i.2xlarge", 8, 16, "c6i (compute)"),
  preset("aws", "c6i.4xlarge", 16, 32, "c6i (compute)"),
  preset("aws", "c6i.8xlarge", 32, 64, "c6i (compute)"),
  // AWS: general purpose
  preset("aws", "m6i.large", 2, 8, "m6i (general)"),
  preset("aws", "m6i.xlarge", 4, 16, "m6i (general)"),
  preset("aws", "m6i.2xlarge", 8, 32, "m6i (general)"),
  preset("aws", "m6i.4xlarge", 16, 64, "m6i (general)"),
  preset("aws", "m6i.8xlarge", 32, 128, "m6i (general)"),
  // GCP: cost optimized (e2-medium shares cores)
  preset("gcp", "e2-medium", 2, 4, "e2", true),
  preset("gcp", "e2-standard-2", 2, 8, "e2"),
  preset("gcp", "e2-standard-4", 4, 16, "e2"),
  preset("gcp", "e2-standard-8", 8, 32, "e2"),
  preset("gcp", "e2-highcpu-4", 4, 4, "e2"),
  preset("gcp", "e2-highcpu-8", 8, 8, "e2"),
  // GCP: general purpose
  preset("gcp", "n2-standard-2", 2, 8, "n2"),
  preset("gcp", "n2-standard-4", 4, 16, "n2"),
  preset("gcp", "n2-standard-8", 8, 32, "n2"),
  preset("gcp", "n2-standard-16", 16, 64, "n2"),
  preset("gcp", "n2-highcpu-8", 8, 8, "n2"),
  // Azure: burstable B-series
  preset("azure", "Standard_B1s", 1, 1, "B-series (burstable)", true),
  preset("azure", "Standard_B1ms", 1, 2, "B-series (burstable)", true),
  preset("azure", "Standard_B2s", 2, 4, "B-series (burstable)", true),
  preset("azure", "Standard_B2ms", 2, 8, "B-series (burstable)", true),
  preset("azure", "Standard_B4ms", 4, 16, "B-series (burstable)", true),
  preset("azure", "Standard_B8ms", 8, 32, "B-series (burstable)", true),
];

export const CLOUD_PROVIDER_LABEL: Record<CloudProvider, string> = { aws: "AWS", gcp: "GCP", azure: "Azure" };

export function findInstancePreset(instanceType: string): InstancePreset | undefined {
  return INSTANCE_PRESETS.find((p) => p.instanceType === instanceType);
}

/** "2 vCPU · 4 GiB" for a config or preset; missing parts are left out. */
export function describeInstanceSize(size: { vcpu?: number | null; memoryMb?: number | null }): string {
  const parts: string[] = [];
  if (size.vcpu != null) parts.push(`${size.vcpu} vCPU`);
  if (size.memoryMb != null) {
    parts.push(size.memoryMb >= GiB ? `${+(size.memoryMb / GiB).toFixed(2)} GiB` : `${size.memoryMb} MiB`);
  }
  return parts.join(" · ");
}
