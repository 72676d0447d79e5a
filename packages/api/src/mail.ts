import { mkdir, open } from "node:fs/promises";
import path from "node:path";
import nodemailer from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /**
   * "console" prints messages to the server log (tests), "file" appends them to a file only the
   * server's user can read, "smtp" hands them to the operator's mail server.
   */
  readonly kind: "console" | "file" | "smtp";
  send(message: MailMessage): Promise<void>;
}

/**
 * Mail printed to a log line (tests, and a server with neither a mail server nor a mail file):
 * a link's token is written out only because nothing else is configured to carry it.
 */
export function createConsoleMailer(log: (line: string) => void = (line) => console.log(line)): Mailer {
  return {
    kind: "console",
    async send(message) {
      log(`[mail] to ${message.to}: ${message.subject}\n${message.text}`);
    },
  };
}

/**
 * Development mail without a mail server: each message is appended to a file that only the
 * server's user may read or write (mode 0600, also enforced on a file that was already there),
 * since its links (password resets, sign-up confirmations) open accounts.
 */
export function createFileMailer(file: string): Mailer {
  let queue: Promise<void> = Promise.resolve();
  const append = async (entry: string) => {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const handle = await open(file, "a", 0o600);
    try {
      await handle.chmod(0o600);
      await handle.appendFile(entry);
    } finally {
      await handle.close();
    }
  };
  return {
    kind: "file",
    send(message) {
      const entry = `[mail] ${new Date().toISOString()} to ${message.to}: ${message.subject}\n${message.text}\n\n`;
      // One message after the other, so two never interleave in the file.
      const done = queue.then(() => append(entry));
      queue = done.catch(() => {});
      return done;
    },
  };
}

export interface SmtpOptions {
  /** `smtp://user:pass@host:587` (STARTTLS when the server offers it) or `smtps://…:465`. */
  url: string;
  from: string;
  /** Refuse a server without STARTTLS on smtp:// (production); tests talk to a plain local server. */
  requireTls?: boolean;
}

/**
 * Mail through the operator's SMTP server. Its address is the operator's own configuration, not
 * something a tenant can point anywhere, so it does not go through the outbound client and its
 * address rules (those judge URLs tenants enter: targets, monitors, webhooks).
 */
export function createSmtpMailer(options: SmtpOptions): Mailer {
  const transport = nodemailer.createTransport(
    {
      url: options.url,
      requireTLS: options.requireTls ?? false,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    },
    { from: options.from },
  );
  return {
    kind: "smtp",
    async send(message) {
      try {
        await transport.sendMail({ to: message.to, subject: message.subject, text: message.text });
      } catch (err) {
        // The transport's own error may quote the server's answer or the URL: keep the code and
        // the server's reply code only, never the credentials in the configured URL.
        const e = err as { code?: string; responseCode?: number };
        throw new Error(
          `the mail server did not take the message (${[e.code, e.responseCode].filter(Boolean).join(", ") || "no code"})`,
        );
      }
    },
  };
}

/**
 * SMTP when the operator configured it (BENCHBOARD_SMTP_URL and BENCHBOARD_MAIL_FROM), else the
 * mail file (BENCHBOARD_MAIL_LOG), else the server log.
 */
export function mailerFromSettings(settings: {
  smtpUrl?: string | null;
  mailFrom?: string | null;
  mailLog?: string | null;
}): Mailer {
  if (settings.smtpUrl && settings.mailFrom) {
    return createSmtpMailer({ url: settings.smtpUrl, from: settings.mailFrom });
  }
  if (settings.mailLog) return createFileMailer(settings.mailLog);
  return createConsoleMailer();
}

/**
 * Send without holding up the request: a reset request answers at once whether or not a message
 * goes out (the answer and its timing say nothing about the account), and a slow or broken mail
 * server is reported in the log, naming neither the link nor the server's credentials.
 */
export function sendInBackground(mailer: Mailer, message: MailMessage, log = (line: string) => console.warn(line)) {
  mailer.send(message).catch((err: unknown) => {
    log(`[mail] could not send "${message.subject}": ${(err as Error).message}`);
  });
}
