"use client";

import { Card } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { LocalTime } from "~/app/_components/local-time";
import { useTRPC } from "~/trpc/client";
import { DeliveryLog } from "./delivery-log";
import { NotificationEndpoints } from "./notification-endpoints";
import { NotificationRules } from "./notification-rules";

/** Notifications: endpoints, the rules that send events to them, and the delivery log. */
export function Notifications() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const canManage = me.data?.role === "owner" || me.data?.role === "member";
  return (
    <Card title="Notifications">
      <p className="mb-4 text-sm text-slate-600">
        Tell people where they already are: runs that start and finish, failed or invalid runs, thresholds, regressions
        against a baseline branch, change points and offline workers or agents go to signed webhooks, Slack or Microsoft
        Teams.
      </p>
      <div className="space-y-6">
        {me.data?.role === "owner" && <OwnerNotices />}
        <NotificationEndpoints canManage={canManage} />
        <NotificationRules canManage={canManage} />
        <DeliveryLog />
      </div>
    </Card>
  );
}

function OwnerNotices() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const notices = useQuery(trpc.notification.notices.queryOptions());
  const dismiss = useMutation(
    trpc.notification.dismissNotice.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.notification.notices.queryKey() }),
    }),
  );
  if (!notices.data?.length) return null;
  return (
    <ul className="space-y-2" aria-label="Notices for owners">
      {notices.data.map((n) => (
        <li
          key={n.id}
          role="alert"
          className="flex items-start justify-between gap-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900"
        >
          <span>
            <span className="font-medium">
              <LocalTime value={n.createdAt} />:
            </span>{" "}
            {n.message}
          </span>
          <button
            type="button"
            className="text-xs font-medium hover:underline"
            onClick={() => dismiss.mutate({ id: n.id })}
          >
            Dismiss
          </button>
        </li>
      ))}
    </ul>
  );
}
