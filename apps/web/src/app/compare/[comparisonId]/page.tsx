import { SavedComparison } from "../_components/saved-comparison";

export const metadata = { title: "Comparison" };

export default async function SavedComparisonPage({ params }: { params: Promise<{ comparisonId: string }> }) {
  const { comparisonId } = await params;
  return <SavedComparison id={comparisonId} />;
}
