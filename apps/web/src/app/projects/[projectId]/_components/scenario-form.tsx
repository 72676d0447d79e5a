"use client";

import { Button, Card, Field, inputClass } from "@benchboard/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { fieldErrors } from "~/trpc/errors";

/** Closed-model HTTP scenario: concurrency and request count. */
export function ScenarioForm({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [path, setPath] = useState("/");
  const [concurrency, setConcurrency] = useState("10");
  const [requests, setRequests] = useState("1000");
  const create = useMutation(
    trpc.scenario.create.mutationOptions({
      onSuccess: () => {
        setName("");
        return queryClient.invalidateQueries(trpc.scenario.list.queryFilter());
      },
    }),
  );
  const errors = fieldErrors(create.error);
  return (
    <Card title="Add scenario">
      <form
        className="space-y-3"
        aria-label="Add scenario"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({
            projectId,
            name,
            spec: {
              engine: "http-closed",
              request: { method: "GET", path, headers: {} },
              concurrency: Number(concurrency),
              requests: Number(requests),
            },
          });
        }}
      >
        <Field label="Scenario name" htmlFor="scenario-name" error={errors.name}>
          <input
            id="scenario-name"
            className={inputClass}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={!!errors.name}
          />
        </Field>
        <Field label="Path" htmlFor="scenario-path" error={errors["spec.request.path"]}>
          <input
            id="scenario-path"
            className={`${inputClass} font-mono`}
            value={path}
            onChange={(e) => setPath(e.target.value)}
          />
        </Field>
        <div className="grid grid-cols-2 gap-3">
          <Field label="Concurrency" htmlFor="scenario-concurrency" error={errors["spec.concurrency"]}>
            <input
              id="scenario-concurrency"
              type="number"
              className={inputClass}
              value={concurrency}
              onChange={(e) => setConcurrency(e.target.value)}
              aria-invalid={!!errors["spec.concurrency"]}
            />
          </Field>
          <Field label="Requests" htmlFor="scenario-requests" error={errors["spec.requests"]}>
            <input
              id="scenario-requests"
              type="number"
              className={inputClass}
              value={requests}
              onChange={(e) => setRequests(e.target.value)}
              aria-invalid={!!errors["spec.requests"]}
            />
          </Field>
        </div>
        {create.isError && !Object.keys(errors).length && (
          <p role="alert" className="text-sm text-rose-700">
            {create.error.message}
          </p>
        )}
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? "Saving…" : "Add scenario"}
        </Button>
      </form>
    </Card>
  );
}
