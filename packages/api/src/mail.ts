import nodemailer from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** "console" prints messages to the server log; "smtp" hands them to the operator's mail server. */
  readonly kind: "console" | "smtp";
  send(message: MailMessage): Promise<void>;
}

/**
 * Development mail: the message goes to the server log. This is the only place a reset link's
 * token is ever written out, and only because no mail server is configured to carry it.
 */
export function createConsoleMailer(log: (line: string) => void = (line) => console.log(line)): Mailer {
  return {
    kind: "console",
    async send(message) {
      log(`[mail] to ${message.to}: ${message.subject}\n${message.text}`);
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

/** SMTP when the operator configured it (BENCHBOARD_SMTP_URL and BENCHBOARD_MAIL_FROM), else the log. */
export function mailerFromSettings(settings: { smtpUrl?: string | null; mailFrom?: string | null }): Mailer {
  if (settings.smtpUrl && settings.mailFrom) {
    return createSmtpMailer({ url: settings.smtpUrl, from: settings.mailFrom });
  }
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
