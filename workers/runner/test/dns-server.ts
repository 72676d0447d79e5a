import dgram from "node:dgram";
import type { AddressInfo } from "node:net";

/**
 * A small authoritative DNS server on 127.0.0.1 (UDP) for tests: A and TXT records from a table
 * that tests may change while it runs, NXDOMAIN for everything else, and a count of the queries
 * each name received. Enough of RFC 1035 for Node's resolver.
 */
export interface DnsRecords {
  A?: string[] | (() => string[]);
  TXT?: string[];
}

export async function startDnsServer(records: Map<string, DnsRecords>) {
  const queries = new Map<string, number>();
  const socket = dgram.createSocket("udp4");
  socket.on("message", (msg, peer) => {
    const reply = answer(msg, records, queries);
    if (reply) socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const port = (socket.address() as AddressInfo).port;
  return {
    server: `127.0.0.1:${port}`,
    /** How many queries (any type) asked for this name. */
    queriesFor: (name: string) => queries.get(name.toLowerCase()) ?? 0,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = offset;
  while (i < msg.length) {
    const len = msg[i]!;
    if (len === 0) return { name: labels.join(".").toLowerCase(), end: i + 1 };
    labels.push(msg.subarray(i + 1, i + 1 + len).toString("ascii"));
    i += 1 + len;
  }
  throw new Error("truncated name");
}

function answer(msg: Buffer, records: Map<string, DnsRecords>, queries: Map<string, number>): Buffer | null {
  if (msg.length < 12) return null;
  const id = msg.readUInt16BE(0);
  const { name, end } = readName(msg, 12);
  const qtype = msg.readUInt16BE(end);
  const question = msg.subarray(12, end + 4);
  queries.set(name, (queries.get(name) ?? 0) + 1);
  const rec = records.get(name);
  const rdatas: Buffer[] = [];
  if (rec && qtype === 1) {
    const a = typeof rec.A === "function" ? rec.A() : (rec.A ?? []);
    for (const ip of a) rdatas.push(Buffer.from(ip.split(".").map(Number)));
  }
  if (rec && qtype === 16) {
    for (const text of rec.TXT ?? []) {
      const bytes = Buffer.from(text, "utf8");
      rdatas.push(Buffer.concat([Buffer.from([bytes.length]), bytes]));
    }
  }
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  // QR, AA, RD, RA; rcode 3 (NXDOMAIN) for unknown names.
  header.writeUInt16BE(0x8580 | (rec ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(rdatas.length, 6);
  const answers = rdatas.map((rdata) => {
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // pointer to the question's name
    rr.writeUInt16BE(qtype, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(0, 6); // TTL 0: every lookup asks again
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, question, ...answers]);
}
