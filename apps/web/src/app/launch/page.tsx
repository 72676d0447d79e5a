import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { PageHeader } from "../_components/page-header";
import { LaunchProjectPicker } from "./launch-project-picker";

export const metadata = { title: "Launch a run" };

export default async function LaunchPickerPage() {
  await prefetch(serverTrpc.project.list.queryOptions());
  return (
    <>
      <PageHeader title="Launch a run" subtitle="Choose the project whose target and scenario you want to run." />
      <HydrateClient>
        <LaunchProjectPicker />
      </HydrateClient>
    </>
  );
}
