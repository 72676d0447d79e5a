import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { PageHeader } from "../../_components/page-header";
import { UploadForm } from "./_components/upload-form";

export const metadata = { title: "Upload results" };

export default async function UploadPage() {
  await prefetch(serverTrpc.project.list.queryOptions());
  return (
    <>
      <PageHeader
        title="Upload results"
        subtitle="Store a run measured elsewhere: Benchboard run JSON, or the output of k6, wrk/wrk2, hey, ab, drill, vegeta or bifrost-benchmarking."
      />
      <HydrateClient>
        <UploadForm />
      </HydrateClient>
    </>
  );
}
