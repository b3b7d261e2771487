// Operator command line: migrations, client credentials, world checks. Refuses to open an embedded data
// folder that a running server holds (PGlite allows one process only).
import { ConfigError, loadConfig, type Config } from './config.js';
import { openStore, type Store } from './store/store.js';
import { createClient, rotateSecret, setClientStatus } from './clients/clients.js';
import { loadWorldFile, WorldError } from './airline/sandbox/world.js';
import { DataDirLockedError } from './store/lock.js';
import { systemClock } from './clock.js';

const USAGE = `usage: postbook <command>
  migrate                              apply pending database migrations
  clients add <id> <name>              create a client; prints its secret once
  clients rotate <id> [--grace-hours N] new secret; the old one works N hours more (default 24)
  clients disable <id> | enable <id>   refuse or allow a client's calls
  world check [file]                   validate a world file (default: $WORLD)
Configuration comes from the same environment variables as the server (README "Configuration").`;

const out = (line: string) => process.stdout.write(`${line}\n`);

async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? null : config.dataDir,
    lockWaitMs: 0,
  });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  const config = loadConfig();
  const now = systemClock.now();
  if (cmd === 'migrate') {
    await withStore(config, async () => undefined); // openStore migrates
    out('migrations: up to date');
    return 0;
  }
  if (cmd === 'world' && sub === 'check') {
    const world = loadWorldFile(rest[0] ?? config.worldPath, now);
    out(`world ${world.name}: ok (${world.airlines.size} airlines, ${world.flights.size} flights, ${world.bookings.size} bookings, ${world.clients.length} clients)`);
    return 0;
  }
  if (cmd === 'clients' && sub === 'add' && rest.length >= 2) {
    const [id, ...name] = rest as [string, ...string[]];
    if (!/^[A-Za-z0-9._-]{3,64}$/.test(id)) {
      process.stderr.write('client id: 3 to 64 letters, digits, dot, dash or underscore\n');
      return 2;
    }
    const secret = await withStore(config, (s) => createClient(s.db, id, name.join(' '), now));
    out(`client ${id} created. Secret (shown only now, store it safely):\n${secret}`);
    return 0;
  }
  if (cmd === 'clients' && sub === 'rotate' && rest[0]) {
    const graceIdx = rest.indexOf('--grace-hours');
    const hours = graceIdx >= 0 ? Number(rest[graceIdx + 1]) : 24;
    if (!Number.isFinite(hours) || hours < 0) {
      process.stderr.write('--grace-hours must be a number of hours\n');
      return 2;
    }
    const secret = await withStore(config, (s) => rotateSecret(s.db, rest[0]!, now, hours * 3600_000));
    if (!secret) {
      process.stderr.write(`no client ${rest[0]}\n`);
      return 1;
    }
    out(`client ${rest[0]}: new secret (the old one works for ${hours} h more; running servers notice within 30 s):\n${secret}`);
    return 0;
  }
  if (cmd === 'clients' && (sub === 'disable' || sub === 'enable') && rest[0]) {
    const ok = await withStore(config, (s) => setClientStatus(s.db, rest[0]!, sub === 'disable' ? 'disabled' : 'active', now));
    if (!ok) {
      process.stderr.write(`no client ${rest[0]}\n`);
      return 1;
    }
    out(`client ${rest[0]}: ${sub}d`);
    return 0;
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((err: unknown) => {
    if (err instanceof ConfigError || err instanceof WorldError || err instanceof DataDirLockedError) {
      process.stderr.write(`postbook: ${err.message}\n`);
      process.exit(78);
    }
    process.stderr.write(`postbook: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
