import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy a test controls, in front of a real server (PostgreSQL, Redis): `cut()` destroys every open connection
 * in both directions (as a failover or a NAT timeout does), `refuse()` also stops listening (new connections get
 * ECONNREFUSED), `accept()` listens again on the same port; `stall()` keeps every connection open but carries nothing
 * more either way (a server that stopped answering, or a network that drops packets without a reset); `resume()` carries
 * new connections again while the stalled ones stay silent (a failover: the old server is gone, the new one answers).
 */
export interface TcpProxy {
  port: number;
  /** Connections currently open through the proxy. */
  openConnections(): number;
  cut(): void;
  stall(): void;
  resume(): void;
  refuse(): Promise<void>;
  accept(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let stalled = false;
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const newServer = (): Server =>
    createServer((client) => {
      track(client);
      if (stalled) {
        client.pause(); // accepted, never answered
        return;
      }
      const upstream = connect(targetPort, targetHost);
      track(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  let server = newServer();
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  const port = await listen(0);
  let listening = true;
  const cut = () => {
    for (const s of sockets) s.destroy();
  };
  const stop = async () => {
    if (!listening) return;
    listening = false;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port,
    openConnections: () => sockets.size / 2,
    cut,
    stall() {
      stalled = true;
      for (const s of sockets) {
        s.unpipe();
        s.pause();
      }
    },
    resume() {
      stalled = false;
    },
    async refuse() {
      const closed = stop();
      cut();
      await closed;
    },
    async accept() {
      if (listening) return;
      server = newServer();
      await listen(port);
      listening = true;
    },
    async close() {
      const closed = stop();
      cut();
      await closed;
    },
  };
}
