import { Agents } from "../_components/agents";

export const metadata = { title: "Agents · Settings" };

export default function AgentsSettingsPage() {
  return <Agents />;
}
