import net from "node:net";

/** One message as the server received it: envelope, login and the decoded text body. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** `user:password` when the client logged in with AUTH PLAIN or LOGIN. */
  login: string | null;
  headers: Record<string, string>;
  body: string;
}

export interface TinySmtpServer {
  port: number;
  messages: ReceivedMail[];
  /** Resolves with the next message (or one already received beyond `after`). */
  nextMessage(after?: number, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * A minimal SMTP server on 127.0.0.1 for tests: EHLO/HELO, AUTH PLAIN/LOGIN (any credentials),
 * MAIL, RCPT, DATA, RSET, NOOP, QUIT; it keeps every message. `rejectRecipients` answers RCPT
 * with 550, as a server refusing an address does.
 */
export async function startTinySmtpServer(options: { rejectRecipients?: boolean } = {}): Promise<TinySmtpServer> {
  const messages: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffer = "";
    let inData = false;
    let data = "";
    let from = "";
    let to: string[] = [];
    let login: string | null = null;
    let authStep: "user" | "pass" | null = null;
    let loginUser = "";
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply("220 127.0.0.1 ESMTP test server");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1");
      while (true) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end === -1) {
            // The whole message so far may end with the terminator split across chunks.
            return;
          }
          data += buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          messages.push({ from, to, login, ...parseMessage(data.replace(/^\.\./gm, ".")) });
          data = "";
          reply("250 2.0.0 queued");
          for (const w of waiters.splice(0)) w();
          continue;
        }
        const at = buffer.indexOf("\r\n");
        if (at === -1) return;
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        if (authStep === "user") {
          loginUser = Buffer.from(line, "base64").toString();
          authStep = "pass";
          reply(`334 ${Buffer.from("Password:").toString("base64")}`);
          continue;
        }
        if (authStep === "pass") {
          login = `${loginUser}:${Buffer.from(line, "base64").toString()}`;
          authStep = null;
          reply("235 2.7.0 authenticated");
          continue;
        }
        const verb = line.split(" ")[0]!.toUpperCase();
        if (verb === "EHLO") {
          socket.write("250-127.0.0.1\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME\r\n");
        } else if (verb === "HELO" || verb === "NOOP") {
          reply("250 OK");
        } else if (verb === "AUTH") {
          const [, mechanism, initial] = line.split(" ");
          if (mechanism?.toUpperCase() === "PLAIN" && initial) {
            const [, user, pass] = Buffer.from(initial, "base64").toString().split("\u0000");
            login = `${user}:${pass}`;
            reply("235 2.7.0 authenticated");
          } else if (mechanism?.toUpperCase() === "LOGIN") {
            authStep = "user";
            reply(`334 ${Buffer.from("Username:").toString("base64")}`);
          } else {
            reply("504 5.5.4 unrecognised authentication type");
          }
        } else if (verb === "MAIL") {
          from = /<([^>]*)>/.exec(line)?.[1] ?? "";
          to = [];
          reply("250 2.1.0 OK");
        } else if (verb === "RCPT") {
          if (options.rejectRecipients) reply("550 5.1.1 no such user here");
          else {
            to.push(/<([^>]*)>/.exec(line)?.[1] ?? "");
            reply("250 2.1.5 OK");
          }
        } else if (verb === "DATA") {
          inData = true;
          data = "";
          reply("354 end data with <CR><LF>.<CR><LF>");
        } else if (verb === "RSET") {
          from = "";
          to = [];
          reply("250 OK");
        } else if (verb === "QUIT") {
          reply("221 2.0.0 bye");
          socket.end();
        } else {
          reply("502 5.5.2 command not implemented");
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    messages,
    async nextMessage(after = messages.length, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (messages.length <= after) {
        if (Date.now() > until) throw new Error(`no mail arrived within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
      return messages[after]!;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Headers (unfolded, lower-case names) and the text body, quoted-printable or base64 decoded. */
function parseMessage(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.indexOf("\r\n\r\n");
  const head = split === -1 ? raw : raw.slice(0, split);
  const bodyRaw = split === -1 ? "" : raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const encoding = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  let body = bodyRaw;
  if (encoding === "base64") body = Buffer.from(bodyRaw.replace(/\s+/g, ""), "base64").toString("utf8");
  else if (encoding === "quoted-printable") {
    const bytes = bodyRaw
      .replace(/=\r\n/g, "")
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    body = Buffer.from(bytes, "latin1").toString("utf8");
  }
  return { headers, body: body.replace(/\r\n/g, "\n") };
}
