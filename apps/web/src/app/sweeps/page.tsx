import { PageHeader } from "../_components/page-header";
import { SweepList } from "./_components/sweep-list";

export const metadata = { title: "Sweeps" };

export default function SweepsPage() {
  return (
    <>
      <PageHeader
        title="Sweeps"
        subtitle="One scenario across values of a parameter: which value meets the thresholds best."
      />
      <SweepList />
    </>
  );
}
