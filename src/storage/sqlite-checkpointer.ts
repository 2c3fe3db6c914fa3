import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the checkpointer copies committed WAL frames into the database file, ms. */
export const CHECKPOINT_INTERVAL_MS = 100;

/** What the last checkpoint did (SQLite's `PRAGMA wal_checkpoint` result), for tests and the benchmark. */
export interface CheckpointStats {
  /** Checkpoints run. */
  checkpoints: number;
  /** Frames in the WAL at the last checkpoint. */
  walFrames: number;
  /** Of those, frames copied into the database file. */
  checkpointedFrames: number;
}

/**
 * The checkpointer's program (CommonJS, evaluated like the writer's). Its own connection runs
 * `PRAGMA wal_checkpoint(PASSIVE)` every `intervalMs`: it copies every frame committed so far into the database file
 * and fsyncs it, without taking any lock a reader or the writer waits for (https://sqlite.org/c3ref/wal_checkpoint_v2.html).
 */
const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
function checkpoint() {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, walFrames: r.log, checkpointedFrames: r.checkpointed });
  } catch (e) {
    parentPort.postMessage({ ok: false, message: String(e && e.message) });
  }
}
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'close') {
    clearInterval(timer);
    db.close();
    parentPort.postMessage({ closed: true });
  }
});
`;

/**
 * Checkpoints a WAL-mode SQLite database in a thread of its own (issue 12), so that the writer's COMMITs no longer
 * carry the checkpoints: SQLite's automatic checkpoint runs inside the COMMIT that takes the WAL past 1,000 pages
 * (https://sqlite.org/wal.html#automatic_checkpoint), and a batch that meets it waits while ~4 MB of pages are
 * written at random places of the database file and fsynced. Here those pages are copied every
 * CHECKPOINT_INTERVAL_MS while the writer goes on; the writer keeps its automatic checkpoint, which copies what this
 * thread has not copied yet and restarts the WAL from its beginning (a PASSIVE checkpoint running beside a busy
 * writer cannot), so the WAL stays bounded even if this thread fell behind. Under a heavy write load (~2,500 DIRECT
 * payments/s, the WAL past 1,000 pages every ~40 ms) that automatic checkpoint still copies most pages
 * (docs/decisions.md).
 * Durability does not depend on it: a commit is on disk once its WAL frames are fsynced.
 */
export class SqliteCheckpointer {
  private readonly worker: Worker;
  readonly stats: CheckpointStats = { checkpoints: 0, walFrames: 0, checkpointedFrames: 0 };
  /** The last checkpoint's error (SQLITE_BUSY while a migration holds the database, say); the next one retries. */
  lastError: string | undefined;

  /** Starts checkpointing `file` (an existing WAL-mode database) every `intervalMs`. */
  constructor(file: string, intervalMs = CHECKPOINT_INTERVAL_MS) {
    this.worker = new Worker(CHECKPOINTER_SOURCE, {
      eval: true,
      workerData: { file, intervalMs, betterSqlite3: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
    this.worker.unref(); // never what keeps the process alive
    this.worker.on(
      'message',
      (m: { ok: true; walFrames: number; checkpointedFrames: number } | { ok: false; message: string }) => {
        if (!('ok' in m)) return;
        if (!m.ok) {
          this.lastError = m.message;
          return;
        }
        this.lastError = undefined;
        this.stats.checkpoints++;
        this.stats.walFrames = m.walFrames;
        this.stats.checkpointedFrames = m.checkpointedFrames;
      },
    );
    this.worker.on('error', (error) => {
      this.lastError = error.message;
    });
  }

  /** Stops checkpointing and closes the connection (the writer's last COMMIT checkpoints what is left). */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      const onMessage = (m: { closed?: boolean }) => {
        if (m.closed) resolve();
      };
      this.worker.on('message', onMessage);
      this.worker.once('exit', () => resolve());
    });
    this.worker.postMessage('close');
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    await this.worker.terminate();
  }
}
