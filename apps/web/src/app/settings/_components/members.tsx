"use client";

import { Button, Card, ErrorState, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "~/app/_components/confirm-dialog";
import { CopyButton } from "~/app/_components/copy-button";
import { RequestError, SelectField, SubmitForm, TextField } from "~/app/_components/form-kit";
import { LocalTime } from "~/app/_components/local-time";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

type Role = "owner" | "member" | "viewer";
const INVITE_ROLES: { value: Role; label: string }[] = [
  { value: "member", label: "member" },
  { value: "viewer", label: "viewer" },
  { value: "owner", label: "owner" },
];

export function Members() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  // Viewers (and readers of a demo organization) are not shown who else is in it.
  const canList = me.data?.role === "owner" || me.data?.role === "member";
  const members = useQuery({ ...trpc.member.list.queryOptions(), enabled: canList });
  const isOwner = me.data?.role === "owner";
  const invitations = useQuery({ ...trpc.member.invitations.queryOptions(), enabled: isOwner });
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.member.pathKey() });
  const updateRole = useMutation(trpc.member.updateRole.mutationOptions({ onSuccess: refresh }));
  const [removing, setRemoving] = useState<{ id: string; email: string } | null>(null);
  const remove = useMutation(
    trpc.member.remove.mutationOptions({
      onSuccess: () => {
        setRemoving(null);
        return refresh();
      },
    }),
  );
  const [revoking, setRevoking] = useState<{ id: string; email: string } | null>(null);
  const revoke = useMutation(
    trpc.member.revokeInvitation.mutationOptions({
      onSuccess: () => {
        setRevoking(null);
        return refresh();
      },
    }),
  );
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [link, setLink] = useState<string | null>(null);
  const [mailed, setMailed] = useState<{ to: string; sent: boolean; reason: string | null } | null>(null);
  const invite = useMutation(
    trpc.member.invite.mutationOptions({
      onSuccess: (r) => {
        setLink(`${window.location.origin}${r.path}`);
        setMailed({ to: r.invitation.email, ...r.email });
        setEmail("");
        return refresh();
      },
    }),
  );
  const errors = fieldErrors(invite.error);
  const actionError = updateRole.error;

  return (
    <Card title="Members">
      {me.data && !canList ? (
        <p className="text-sm text-slate-600">Only owners and members of this organization see its members.</p>
      ) : members.isPending ? (
        <Skeleton className="h-24" label="Loading members" />
      ) : members.isError ? (
        <ErrorState message={errorMessage(members.error)} />
      ) : (
        <table className="w-full text-sm" aria-label="Members">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="py-1">Member</th>
              <th>Role</th>
              {isOwner && <th className="text-right">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {members.data.map((m) => (
              <tr key={m.id} className="border-t border-slate-100">
                <td className="py-1.5">
                  <div className="font-medium">{m.user.name || m.user.email}</div>
                  <div className="text-xs text-slate-500">{m.user.email}</div>
                </td>
                <td>
                  {isOwner ? (
                    <select
                      aria-label={`Role of ${m.user.email}`}
                      className="rounded border border-slate-300 px-1 py-0.5 text-sm"
                      value={m.role}
                      onChange={(e) => updateRole.mutate({ id: m.id, role: e.target.value as Role })}
                    >
                      <option value="owner">owner</option>
                      <option value="member">member</option>
                      <option value="viewer">viewer</option>
                    </select>
                  ) : (
                    m.role
                  )}
                </td>
                {isOwner && (
                  <td className="text-right">
                    <button
                      type="button"
                      className="text-xs font-medium text-rose-700 hover:underline"
                      aria-label={`Remove ${m.user.email}`}
                      onClick={() => {
                        remove.reset();
                        setRemoving({ id: m.id, email: m.user.email });
                      }}
                    >
                      Remove
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <RequestError error={actionError} />
      {isOwner && (
        <div className="mt-6 border-t border-slate-100 pt-4">
          <h3 className="mb-2 text-sm font-semibold">Invite someone</h3>
          <SubmitForm
            className="flex flex-wrap items-end gap-3"
            label="Invite"
            onSubmit={() => invite.mutate({ email, role })}
          >
            <div className="min-w-56 flex-1">
              <TextField id="invite-email" label="Email" value={email} onValue={setEmail} error={errors.email} />
            </div>
            <SelectField
              id="invite-role"
              label="Role"
              value={role}
              onValue={(v) => setRole(v as Role)}
              error={errors.role}
              options={INVITE_ROLES}
            />
            <Button type="submit" disabled={invite.isPending}>
              Create invitation
            </Button>
          </SubmitForm>
          <RequestError error={invite.error} />
          {link && (
            <div className="mt-3 rounded-md border border-emerald-200 bg-emerald-50 p-3 text-sm">
              <p className="font-medium text-emerald-900" role="status">
                {mailed?.sent
                  ? `Emailed to ${mailed.to}. The link also works from here; it is shown only once and expires in 7 days.`
                  : `Not emailed${mailed?.reason ? ` (${mailed.reason})` : ""}. Send this link; it is shown only once and expires in 7 days.`}
              </p>
              <output className="mt-1 block break-all font-mono text-xs" aria-label="Invitation link">
                {link}
              </output>
              <CopyButton text={link} label="Copy link" />
            </div>
          )}
          {invitations.data && invitations.data.length > 0 && (
            <ul className="mt-4 space-y-1 text-sm" aria-label="Pending invitations">
              {invitations.data.map((i) => (
                <li key={i.id} className="flex justify-between">
                  <span>
                    {i.email} · {i.role} · expires <LocalTime value={i.expiresAt} date />
                  </span>
                  <button
                    type="button"
                    className="text-xs font-medium text-rose-700 hover:underline"
                    onClick={() => setRevoking({ id: i.id, email: i.email })}
                  >
                    Revoke
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing?.email ?? ""} from this organization?`}
        confirmLabel="Remove member"
        pending={remove.isPending}
        error={remove.isError ? errorMessage(remove.error) : null}
        onConfirm={() => removing && remove.mutate({ id: removing.id })}
        onCancel={() => setRemoving(null)}
      >
        <p>
          They lose access at once: their API tokens for this organization stop working. Runs and results they made
          stay.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this invitation?"
        confirmLabel="Revoke invitation"
        pending={revoke.isPending}
        error={revoke.isError ? errorMessage(revoke.error) : null}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onCancel={() => setRevoking(null)}
      >
        <p>The link sent to {revoking?.email} stops working at once. You can invite them again later.</p>
      </ConfirmDialog>
    </Card>
  );
}
