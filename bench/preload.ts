/**
 * `--preload N`: fills a benchmark database with N payments of the bench merchant, each with the operations and the
 * notifications a real one has, by bulk SQL (copies of a real payment the API created, new ids), not through the API.
 * The copies are spread over the last 25 days and their notifications are DELIVERED (the steady state of a busy
 * merchant within the notification retention period). payIds are random (version 4, as Kassa makes them); xIds and
 * message ids are version 7 shaped, their 48-bit millisecond timestamp the copy's creation time (as newHexId makes
 * them).
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { BENCH_MERCHANT_ID } from './workload.js';

const CHUNK = 100_000;
const SPREAD_S = 25 * 24 * 3600;

export type PreloadTarget = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };

/** Inserts `n` payments (in chunks of 100,000, one transaction each) copied from `templatePayId`. */
export async function preload(
  target: PreloadTarget,
  n: number,
  templatePayId: string,
  progress: (done: number) => void,
): Promise<void> {
  if (target.dialect === 'sqlite') return preloadSqlite(target.file, n, templatePayId, progress);
  return preloadPostgres(target.url, n, templatePayId, progress);
}

function columnsOf(names: string[], replaced: Record<string, string>): { list: string; select: string } {
  return {
    list: names.join(', '),
    select: names.map((c) => replaced[c] ?? `t.${c}`).join(', '),
  };
}

function preloadSqlite(file: string, n: number, template: string, progress: (done: number) => void): void {
  const db = new SQLite(file);
  // Bench data, not payments: loaded without a rollback journal or WAL (which would write every page twice) and without
  // fsyncs; the server switches the file back to WAL with synchronous=FULL when it opens it.
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  // Random 128-bit keys scatter the index inserts: with SQLite's default 2 MB page cache every chunk rereads most of
  // the indexes from disk and the load slows as the database grows. 1 GB of cache for this connection only.
  db.pragma('cache_size = -1000000');
  const names = (table: string) => (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name);
  const ago = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (n.i * ${SPREAD_S} / ${n}) || ' seconds')`;
  const payment = columnsOf(names('payment'), {
    pay_id: 'lower(hex(randomblob(16)))',
    trans_id: `'preload-' || n.i`,
    created_at: ago,
    updated_at: ago,
  });
  const v7 = (at: string) =>
    `printf('%012x', cast(unixepoch(${at}, 'subsec') * 1000 as integer)) || '7' || substr(lower(hex(randomblob(10))), 2)`;
  const operation = columnsOf(names('payment_operation'), {
    x_id: v7('p.created_at'),
    pay_id: 'p.pay_id',
    payment_created_at: 'p.created_at',
    created_at: 'p.created_at',
  });
  const notification = columnsOf(names('notification'), {
    id: `'msg_' || ${v7('p.created_at')}`,
    pay_id: 'p.pay_id',
    payment_created_at: 'p.created_at',
    status: `'DELIVERED'`,
    target_url: `'https://shop.example/hook'`,
    attempt_count: '1',
    next_attempt_at: 'p.created_at',
    created_at: 'p.created_at',
    delivered_at: 'p.created_at',
    locked_until: 'null',
  });
  const insertPayments = db.prepare(
    `with recursive n(i) as (select ? union all select i + 1 from n where i < ?)
     insert into payment (${payment.list}) select ${payment.select} from n, payment t where t.pay_id = ?`,
  );
  const chunkPayments = `select pay_id, created_at from payment where merchant_id = '${BENCH_MERCHANT_ID}'
     and trans_id in (select 'preload-' || value from (with recursive n(value) as (select ? union all select value + 1 from n where value < ?) select value from n))`;
  const insertOperations = db.prepare(
    `insert into payment_operation (${operation.list}) select ${operation.select}
     from (${chunkPayments}) p, payment tp, payment_operation t
     where tp.pay_id = ? and t.payment_created_at = tp.created_at and t.pay_id = tp.pay_id`,
  );
  const insertNotifications = db.prepare(
    `insert into notification (${notification.list}) select ${notification.select}
     from (${chunkPayments}) p, payment tp, notification t
     where tp.pay_id = ? and t.payment_created_at = tp.created_at and t.pay_id = tp.pay_id`,
  );
  const chunk = db.transaction((from: number, to: number) => {
    insertPayments.run(from, to, template);
    insertOperations.run(from, to, template);
    insertNotifications.run(from, to, template);
  });
  for (let from = 1; from <= n; from += CHUNK) {
    const to = Math.min(n, from + CHUNK - 1);
    chunk(from, to);
    progress(to);
  }
  db.pragma('optimize');
  db.pragma('journal_mode = WAL');
  db.close();
  // Loaded without fsyncs: flush the file now, so the kernel's write-back of a gigabyte does not compete with the
  // measured phases' fsyncs (a database of a million payments is not in the middle of being written).
  const fd = openSync(file, 'r+');
  fsyncSync(fd);
  closeSync(fd);
}

async function preloadPostgres(url: string, n: number, template: string, progress: (done: number) => void) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const names = async (table: string) =>
      (
        await client.query<{ column_name: string }>(
          `select column_name from information_schema.columns where table_name = $1 order by ordinal_position`,
          [table],
        )
      ).rows.map((r) => r.column_name);
    const ago = `to_char((now() - make_interval(secs => n.i::double precision * ${SPREAD_S} / ${n})) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    const payment = columnsOf(await names('payment'), {
      pay_id: 'md5(random()::text || n.i)',
      trans_id: `'preload-' || n.i`,
      created_at: ago,
      updated_at: ago,
    });
    const v7 = (at: string) =>
      `lpad(to_hex((extract(epoch from ${at}::timestamptz) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text || p.pay_id), 1, 19)`;
    const operation = columnsOf(await names('payment_operation'), {
      x_id: v7('p.created_at'),
      pay_id: 'p.pay_id',
      payment_created_at: 'p.created_at',
      created_at: 'p.created_at',
    });
    const notification = columnsOf(await names('notification'), {
      id: `'msg_' || ${v7('p.created_at')}`,
      pay_id: 'p.pay_id',
      payment_created_at: 'p.created_at',
      status: `'DELIVERED'`,
      target_url: `'https://shop.example/hook'`,
      attempt_count: '1',
      next_attempt_at: 'p.created_at',
      created_at: 'p.created_at',
      delivered_at: 'p.created_at',
      locked_until: 'null',
    });
    for (let from = 1; from <= n; from += CHUNK) {
      const to = Math.min(n, from + CHUNK - 1);
      await client.query('begin');
      await client.query(
        `insert into payment (${payment.list}) select ${payment.select}
         from generate_series($1::int, $2::int) n(i), payment t where t.pay_id = $3`,
        [from, to, template],
      );
      const chunkPayments = `select pay_id, created_at from payment where merchant_id = '${BENCH_MERCHANT_ID}'
         and trans_id in (select 'preload-' || g from generate_series($1::int, $2::int) g)`;
      await client.query(
        `insert into payment_operation (${operation.list}) select ${operation.select}
         from (${chunkPayments}) p, payment tp, payment_operation t
         where tp.pay_id = $3 and t.payment_created_at = tp.created_at and t.pay_id = tp.pay_id`,
        [from, to, template],
      );
      await client.query(
        `insert into notification (${notification.list}) select ${notification.select}
         from (${chunkPayments}) p, payment tp, notification t
         where tp.pay_id = $3 and t.payment_created_at = tp.created_at and t.pay_id = tp.pay_id`,
        [from, to, template],
      );
      await client.query('commit');
      progress(to);
    }
    await client.query('vacuum analyze');
    // Likewise: the bulk load's dirty pages are written out now, not by a checkpoint during the measured phases.
    await client.query('checkpoint');
  } finally {
    await client.end();
  }
}
