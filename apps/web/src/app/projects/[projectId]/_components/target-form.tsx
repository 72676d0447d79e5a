"use client";

import { Button, Card, Field, inputClass } from "@benchboard/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { fieldErrors } from "~/trpc/errors";

export function TargetForm({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [baseUrl, setBaseUrl] = useState("http://127.0.0.1:");
  const [kind, setKind] = useState<"http" | "llm" | "ws_chat">("http");
  const create = useMutation(
    trpc.target.create.mutationOptions({
      onSuccess: () => {
        setName("");
        return queryClient.invalidateQueries(trpc.target.list.queryFilter());
      },
    }),
  );
  const errors = fieldErrors(create.error);
  return (
    <Card title="Add target">
      <form
        className="space-y-3"
        aria-label="Add target"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ projectId, name, kind, baseUrl });
        }}
      >
        <Field label="Target name" htmlFor="target-name" error={errors.name}>
          <input
            id="target-name"
            className={inputClass}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={!!errors.name}
          />
        </Field>
        <Field label="Kind" htmlFor="target-kind">
          <select
            id="target-kind"
            className={inputClass}
            value={kind}
            onChange={(e) => setKind(e.target.value as typeof kind)}
          >
            <option value="http">HTTP</option>
            <option value="llm">LLM (OpenAI-compatible)</option>
            <option value="ws_chat">WebSocket chat</option>
          </select>
        </Field>
        <Field label="Base URL" htmlFor="target-url" error={errors.baseUrl}>
          <input
            id="target-url"
            className={`${inputClass} font-mono`}
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.target.value)}
            aria-invalid={!!errors.baseUrl}
          />
        </Field>
        {create.isError && !Object.keys(errors).length && (
          <p role="alert" className="text-sm text-rose-700">
            {create.error.message}
          </p>
        )}
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? "Saving…" : "Add target"}
        </Button>
      </form>
    </Card>
  );
}
