import { ApiTokens } from "../_components/api-tokens";

export const metadata = { title: "API tokens · Settings" };

export default function TokensSettingsPage() {
  return (
    <div className="max-w-4xl">
      <ApiTokens />
    </div>
  );
}
