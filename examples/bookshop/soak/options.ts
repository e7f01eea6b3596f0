/** The soak's command line: `pnpm --filter bookshop soak [--duration 180] [--clients 8] [--rate 200] …` (see `--help`). */
import { readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';

export interface SoakOptions {
  /** Seconds of load. */
  readonly duration: number;
  /** Concurrent clients, each with its own author and books. */
  readonly clients: number;
  /** Requests per second over all clients; 0: as fast as they go. */
  readonly rate: number;
  /** Seconds after the start of the load when PostgreSQL is restarted; undefined: never. */
  readonly restartAt: number | undefined;
  /** Milliseconds PostgreSQL stays stopped; 0: one `pg_ctlcluster restart`. */
  readonly downFor: number;
  /** The PostgreSQL server to use (a fresh schema is made in it and dropped at the end). */
  readonly databaseUrl: string;
  /** The Debian cluster `pg_ctlcluster` restarts: `<version> <name>`. */
  readonly cluster: readonly [string, string];
  /** Milliseconds after which a request counts as hung. */
  readonly hangAfter: number;
  /** The bound on the server's resident memory, in MB. */
  readonly maxRssMb: number;
  /** Keep the schema for inspection instead of dropping it. */
  readonly keepSchema: boolean;
}

export const USAGE = `Usage: pnpm --filter bookshop soak [options]

Runs the compiled bookshop on a fresh PostgreSQL schema under mixed reads and writes, restarts PostgreSQL once, and
checks that the outage was answered with fast 503s, that the app recovered by itself and that no acknowledged write
was lost. Exits 1 when a check fails. Loopback only; restarting the cluster needs root (pg_ctlcluster).

  --duration <s>      seconds of load (default 180)
  --clients <n>       concurrent clients (default 8)
  --rate <n>          requests per second over all clients, 0 for no limit (default 200)
  --restart-at <s>    seconds into the load when PostgreSQL restarts (default: half the duration)
  --down-for <s>      seconds PostgreSQL stays stopped before it starts again; 0 for one
                      "pg_ctlcluster restart", a fraction of a second (default 3)
  --no-restart        no restart: a baseline run
  --database-url <u>  PostgreSQL (default $TEST_POSTGRES_URL or postgres://postgres@127.0.0.1:5432/test)
  --cluster <v/name>  the pg_ctlcluster cluster (default: the only version in /etc/postgresql, "main")
  --hang-after <ms>   a request without an answer after this long counts as hung (default 10000)
  --max-rss <MB>      the bound on the server's resident memory (default 400)
  --keep-schema       keep the soak schema at the end`;

const positive = (name: string, raw: string, allowZero = false): number => {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0))
    throw new Error(`--${name} must be a ${allowZero ? 'non-negative' : 'positive'} number (got "${raw}").`);
  return value;
};

function defaultCluster(): [string, string] {
  const versions = readdirSync('/etc/postgresql', { withFileTypes: true }).filter((entry) => entry.isDirectory());
  if (versions.length !== 1)
    throw new Error(
      `Found ${versions.length} PostgreSQL versions in /etc/postgresql: name one with --cluster <version>/<name>.`,
    );
  return [versions[0]!.name, 'main'];
}

/** The options, or undefined after printing the usage for `--help`. Throws with a message on a bad option. */
export function parseOptions(argv: readonly string[]): SoakOptions | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      duration: { type: 'string', default: '180' },
      clients: { type: 'string', default: '8' },
      rate: { type: 'string', default: '200' },
      'restart-at': { type: 'string' },
      'no-restart': { type: 'boolean', default: false },
      'down-for': { type: 'string', default: '3' },
      'database-url': { type: 'string' },
      cluster: { type: 'string' },
      'hang-after': { type: 'string', default: '10000' },
      'max-rss': { type: 'string', default: '400' },
      'keep-schema': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return undefined;
  }
  const duration = positive('duration', values.duration);
  const restartAt = values['no-restart']
    ? undefined
    : values['restart-at'] === undefined
      ? duration / 2
      : positive('restart-at', values['restart-at']);
  if (restartAt !== undefined && restartAt >= duration)
    throw new Error(`--restart-at (${restartAt}) must come before the end of --duration (${duration}).`);
  const databaseUrl =
    values['database-url'] ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const host = new URL(databaseUrl).hostname;
  // The soak restarts the local cluster; a remote URL would load one server and restart another.
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host))
    throw new Error(`--database-url must be a loopback PostgreSQL (got host "${host}").`);
  const cluster = values.cluster?.split('/') ?? defaultCluster();
  if (cluster.length !== 2)
    throw new Error(`--cluster must be <version>/<name>, e.g. 15/main (got "${values.cluster}").`);
  return {
    duration,
    clients: Math.floor(positive('clients', values.clients)),
    rate: positive('rate', values.rate, true),
    restartAt,
    downFor: positive('down-for', values['down-for'], true) * 1000,
    databaseUrl,
    cluster: [cluster[0]!, cluster[1]!],
    hangAfter: positive('hang-after', values['hang-after']),
    maxRssMb: positive('max-rss', values['max-rss']),
    keepSchema: values['keep-schema'],
  };
}
