import { DEFAULT_INSTALL_SETTINGS } from "@benchboard/core";
import type { Mailer, MailMessage } from "../mail";
import { createCaller } from "../root";
import type { Context } from "../trpc";

/** A mailer that keeps what it was given, for tests that follow a mailed link. */
export function createMailbox(): Mailer & {
  messages: MailMessage[];
  /** The token of the newest link to `path` (e.g. "/confirm-sign-up/") mailed to `to`; waits for it. */
  linkToken(to: string, path: string): Promise<string>;
} {
  const messages: MailMessage[] = [];
  return {
    kind: "console",
    messages,
    async send(message) {
      messages.push(message);
    },
    async linkToken(to, path) {
      const link = new RegExp(`${path.replace(/[/.]/g, "\\$&")}([A-Za-z0-9_-]{43})`);
      for (let i = 0; i < 50; i++) {
        const found = messages.filter((m) => m.to === to.toLowerCase()).reverse();
        const token = found.map((m) => link.exec(m.text)?.[1]).find(Boolean);
        if (token) return token;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no mail to ${to} with a ${path} link`);
    },
  };
}

/**
 * Sign up through the procedure as a person does: an ordinary sign-up is finished with the link
 * mailed to `mailbox` (the caller's context must send mail there). Returns the account's email.
 */
export async function signUpThroughMail(
  caller: ReturnType<typeof createCaller>,
  mailbox: ReturnType<typeof createMailbox>,
  input: { email: string; password: string; name?: string },
): Promise<{ email: string }> {
  const answer = await caller.auth.signUp(input);
  if (answer.signedIn) return { email: answer.email };
  const token = await mailbox.linkToken(answer.email, "/confirm-sign-up/");
  return caller.auth.confirmSignUp({ token });
}

/**
 * A stranger's sign-up, finished from the mailed link, through an anonymous caller on `base`'s
 * database and queue (from a random private address, so per-address limits leave tests alone).
 * Returns the new account's session token.
 */
export async function signUpForSession(
  base: Pick<Context, "db" | "queue">,
  mailbox: ReturnType<typeof createMailbox>,
  input: { email: string; password: string },
): Promise<string> {
  const jar: { token: string | null } = { token: null };
  const anonymous = createCaller({
    ...base,
    orgId: null,
    userId: null,
    role: null,
    install: DEFAULT_INSTALL_SETTINGS,
    mailer: mailbox,
    clientIp: `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    session: {
      token: null,
      set: (token: string) => {
        jar.token = token;
      },
      clear: () => {},
    },
  });
  await signUpThroughMail(anonymous, mailbox, input);
  if (!jar.token) throw new Error("sign-up set no session");
  return jar.token;
}
