import { SweepReport } from "../_components/sweep-report";

export const metadata = { title: "Sweep" };

export default async function SweepPage({ params }: { params: Promise<{ sweepId: string }> }) {
  const { sweepId } = await params;
  return <SweepReport id={sweepId} />;
}
