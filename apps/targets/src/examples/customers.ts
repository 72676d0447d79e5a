import pg from "pg";

/**
 * The medium example's data: a `customers` table in its own database (created when missing) with
 * 500 customers of one user, like the SaaS template benchmark that inserted 500 customers for
 * `test@example.com` before fetching them.
 */

export const SEED_USER_EMAIL = "test@example.com";
export const SEED_CUSTOMERS = 500;

const FIRST_NAMES = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "Dennis"];
const LAST_NAMES = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Perlman"];

export interface Customer {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  priority: number;
  userEmail: string;
  createdAt: string;
}

/** The URL of `database` on the same server as `serverUrl`, creating the database if needed. */
export async function ensureDatabase(serverUrl: string, database: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database)) throw new Error(`invalid database name ${database}`);
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${database}"`);
      } catch (error) {
        // Another instance created it between the check and the create.
        if ((error as { code?: string }).code !== "42P04") throw error;
      }
    }
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Create the table and seed it once; concurrent starts are serialized by an advisory lock. */
export async function ensureCustomers(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext('benchboard_examples.customers'))");
    await client.query(`
      CREATE TABLE IF NOT EXISTS customers (
        id serial PRIMARY KEY,
        first_name text NOT NULL,
        last_name text NOT NULL,
        email text NOT NULL,
        phone text NOT NULL,
        priority integer NOT NULL,
        user_email text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await client.query("CREATE INDEX IF NOT EXISTS customers_user_email_idx ON customers (user_email, id)");
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM customers WHERE user_email = $1",
      [SEED_USER_EMAIL],
    );
    if ((rows[0]?.n ?? 0) === 0) {
      await client.query(
        `INSERT INTO customers (first_name, last_name, email, phone, priority, user_email, created_at)
         SELECT f, l, e, p, pr, $6, timestamptz '2024-02-15 00:00:00+00' + make_interval(secs => o)
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[]) WITH ORDINALITY AS t(f, l, e, p, pr, o)`,
        seedColumns(SEED_USER_EMAIL),
      );
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

function seedColumns(userEmail: string): unknown[] {
  const first: string[] = [];
  const last: string[] = [];
  const email: string[] = [];
  const phone: string[] = [];
  const priority: number[] = [];
  for (let i = 0; i < SEED_CUSTOMERS; i++) {
    const f = FIRST_NAMES[i % FIRST_NAMES.length]!;
    const l = LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length]!;
    first.push(f);
    last.push(l);
    email.push(`${f}.${l}.${i + 1}@example.com`.toLowerCase());
    phone.push(`+1-555-${String(1000 + i).padStart(4, "0")}`);
    priority.push((i % 3) + 1);
  }
  return [first, last, email, phone, priority, userEmail];
}

const SELECT_COLUMNS = `id, first_name AS "firstName", last_name AS "lastName", email, phone, priority,
  user_email AS "userEmail", created_at AS "createdAt"`;

/** A user's customers, oldest first. The cap keeps a grown table from producing unbounded bodies. */
export async function listCustomers(pool: pg.Pool, userEmail: string, limit = 10_000): Promise<Customer[]> {
  const { rows } = await pool.query<Customer>(
    `SELECT ${SELECT_COLUMNS} FROM customers WHERE user_email = $1 ORDER BY id LIMIT $2`,
    [userEmail, limit],
  );
  return rows;
}

export async function createCustomer(pool: pg.Pool, input: Omit<Customer, "id" | "createdAt">): Promise<Customer> {
  const { rows } = await pool.query<Customer>(
    `INSERT INTO customers (first_name, last_name, email, phone, priority, user_email)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${SELECT_COLUMNS}`,
    [input.firstName, input.lastName, input.email, input.phone, input.priority, input.userEmail],
  );
  return rows[0]!;
}
