import { type ConnectionOptions, connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

function handshake(url: string, ca: string, options: ConnectionOptions): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca, servername: undefined, ...options }, () => {
      const protocol = socket.getProtocol() ?? 'unknown';
      socket.end();
      resolve(protocol);
    });
    socket.once('error', reject);
  });
}

describe('TLS (spec §1.3, §7.2)', () => {
  let t: TestKassa;
  beforeAll(async () => {
    t = await startTestKassa('sqlite');
  });
  afterAll(async () => t?.close());

  it.each(['TLSv1.2', 'TLSv1.3'] as const)('a %s client connects', async (version) => {
    expect(await handshake(t.url, t.ca, { minVersion: version, maxVersion: version })).toBe(version);
  });

  // Security: protocol versions below TLS 1.2 are refused at the handshake.
  it.each(['TLSv1', 'TLSv1.1'] as const)('a %s client is refused at the handshake', async (version) => {
    await expect(
      handshake(t.url, t.ca, { minVersion: version, maxVersion: version, ciphers: 'DEFAULT:@SECLEVEL=0' }),
    ).rejects.toThrow(/protocol|version|alert|handshake|wrong/i);
  });

  it('plain HTTP on the HTTPS port gets no API answer', async () => {
    const { hostname, port } = new URL(t.url);
    const res = await fetch(`http://${hostname}:${port}/healthz`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(res === 'refused' || res === 400).toBe(true);
  });
});

describe('TLS 1.2 cipher suites: ECDHE + AEAD only (Mozilla intermediate)', () => {
  let t: TestKassa;
  beforeAll(async () => {
    t = await startTestKassa('sqlite');
  });
  afterAll(async () => t?.close());

  // Security: static-RSA key exchange (no forward secrecy) and CBC suites are refused at the handshake.
  it.each(['AES128-SHA256', 'AES256-SHA', 'AES128-GCM-SHA256', 'ECDHE-RSA-AES128-SHA', 'ECDHE-RSA-AES256-SHA384'])(
    'a TLS 1.2 client offering only %s is refused',
    async (ciphers) => {
      await expect(
        handshake(t.url, t.ca, { maxVersion: 'TLSv1.2', ciphers: `${ciphers}:@SECLEVEL=0` }),
      ).rejects.toThrow(/handshake|cipher|alert/i);
    },
  );

  it.each(['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-RSA-CHACHA20-POLY1305'])(
    'a TLS 1.2 client offering only %s connects',
    async (ciphers) => {
      expect(await handshake(t.url, t.ca, { maxVersion: 'TLSv1.2', ciphers })).toBe('TLSv1.2');
    },
  );
});
