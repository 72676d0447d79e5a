"use client";

import { Button, Card, Field, inputClass } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, useSyncExternalStore } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";

const noSubscription = () => () => {};

/**
 * Owners publish the project's status badges (the default branch's latest value and verdict of a
 * scenario's metric) for READMEs; until then the badge address answers 404 to everyone.
 */
export function StatusBadges({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const project = useQuery(trpc.project.byId.queryOptions({ id: projectId }));
  const [branch, setBranch] = useState("main");
  useEffect(() => {
    if (project.data) setBranch(project.data.defaultBranch);
  }, [project.data]);
  const save = useMutation(
    trpc.project.setBadges.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.project.byId.queryKey({ id: projectId }) }),
    }),
  );
  // The server does not know the address the browser used: the first render (hydrating) leaves it out too.
  const origin = useSyncExternalStore(
    noSubscription,
    () => window.location.origin,
    () => "",
  );
  if (me.data?.role !== "owner" || !project.data) return null;
  const isPublic = project.data.badgesPublic;
  const example = `${origin}/api/v1/badge/${projectId}/<scenario>/latency_p99.svg`;
  return (
    <Card title="Status badges">
      <p className="text-sm text-slate-600">
        {isPublic
          ? "Badges are public: anyone with the address sees the latest value and verdict on the default branch."
          : "Badges are private: their addresses answer 404 (a share link's token still shows them)."}
      </p>
      <form
        className="mt-3 flex flex-wrap items-end gap-3"
        aria-label="Status badges"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ id: projectId, badgesPublic: !isPublic, defaultBranch: branch });
        }}
      >
        <div className="min-w-44">
          <Field label="Default branch" htmlFor="badge-branch">
            <input
              id="badge-branch"
              className={inputClass}
              value={branch}
              onChange={(e) => setBranch(e.target.value)}
            />
          </Field>
        </div>
        <Button type="submit" disabled={save.isPending}>
          {isPublic ? "Make badges private" : "Make badges public"}
        </Button>
      </form>
      {save.isError && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {errorMessage(save.error)}
        </p>
      )}
      {isPublic && (
        <p className="mt-3 text-xs text-slate-600">
          Markdown: <code className="break-all">{`![benchmark](${example})`}</code>
        </p>
      )}
    </Card>
  );
}
