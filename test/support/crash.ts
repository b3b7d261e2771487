// Scaffolding of the crash tests (test/refund-crash.test.ts, test/void-crash.test.ts): temporary folders and
// PostgreSQL databases removed when the file ends, HTTP calls to a child server, bounded parallelism, and
// the small reports they print. Call `cleanUp` in an `after` hook.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { killChildren, type Proc } from './processes.js';

export const DATABASE_URL = process.env.DATABASE_URL ?? null;
const tmpDirs: string[] = [];
const databases: Array<() => Promise<void>> = [];

/** Kills the children, drops the databases and removes the folders this file made. */
export async function cleanUp(): Promise<void> {
  killChildren();
  for (const drop of databases) await drop().catch(() => undefined);
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
}

export function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-crash-'));
  tmpDirs.push(d);
  return d;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const secondsSince = (t: number) => ((Date.now() - t) / 1000).toFixed(1);

/** Status changes a process logged (`msg`, e.g. "refund status changed", with from and to). */
export const logged = (p: Proc, msg: string) => p.lines().filter((l) => l.msg === msg) as Array<Record<string, unknown> & { from: number; to: number }>;

export async function post(url: string, pathName: string, body: unknown, headers: Record<string, string>): Promise<Record<string, any>> {
  const res = await fetch(url + pathName, { method: 'POST', headers, body: JSON.stringify(body) });
  return (await res.json()) as Record<string, any>;
}

/** Runs fn over items, `width` at a time; results in item order. */
export async function inParallel<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

/** A PostgreSQL database of its own (dropped at cleanUp): its URL. */
export async function freshDatabase(): Promise<string> {
  const name = `pb_crash_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL! });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  databases.push(async () => {
    const c = new pg.Client({ connectionString: DATABASE_URL! });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });
  const url = new URL(DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

/** "value×count" of a list of numbers. */
export function distribution(values: number[]): string {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a - b).map(([v, n]) => `${v}×${n}`).join(' ');
}

/**
 * On PostgreSQL the jobs a killed process left active come back only by pg-boss's expiry: expireInSeconds
 * is 60 s (src/refunds/workers.ts, no configuration knob) plus up to one 30 s maintenance interval, and
 * restart recovery is off there because other processes may be running those jobs: ~1.5 min of waiting on
 * top of the run. CRASH_TEST_ON_POSTGRES=1 runs a kill -9 test there anyway.
 */
export const crashSkip =
  DATABASE_URL && process.env.CRASH_TEST_ON_POSTGRES !== '1'
    ? 'on PostgreSQL, jobs left active by kill -9 return only after expiry (60 s + up to 30 s maintenance; no knob to shorten it): set CRASH_TEST_ON_POSTGRES=1 to run it (~2 min)'
    : false;
