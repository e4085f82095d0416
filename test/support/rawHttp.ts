/** Requests no ordinary client would send: full control of Host and Origin, raw bytes, a reader that never reads. */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface RawResponse {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `bytes` as they are on a fresh connection to the server behind `url`, and parses the
 * one response that comes back (a Content-Length body; the server may close the connection
 * right after, or reset it). Rejects when nothing parseable arrives within `ms`.
 */
export function rawExchange(url: string, text: string | Buffer, ms = 3000): Promise<RawResponse> {
  const bytes = Buffer.from(text);
  const { hostname, port } = new URL(url);
  // The answer to a HEAD announces a length but carries no body.
  const head = bytes.subarray(0, 5).toString() === 'HEAD ';
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      const response = parseResponse(received, head);
      if (response) resolve(response);
      else reject(error ?? new Error(`no complete response; got ${JSON.stringify(received.toString().slice(0, 200))}`));
    };
    const timer = setTimeout(() => finish(new Error(`no response within ${ms} ms`)), ms);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (parseResponse(received, head)) finish();
    });
    // A server that answers and then resets the connection (it had unread bytes) has still answered.
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish());
    socket.write(bytes);
  });
}

/** Writes `bytes` on a fresh connection and resolves with everything the server sends until it closes it. */
export function rawBytes(url: string, text: string, ms = 5000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was not closed within ${ms} ms; got ${JSON.stringify(Buffer.concat(chunks).toString().slice(0, 300))}`));
    }, ms);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString());
    });
    socket.write(text);
  });
}

function parseResponse(bytes: Buffer, head: boolean): RawResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const length = head ? 0 : Number(headers['content-length'] ?? 0);
  const body = bytes.subarray(end + 4);
  if (body.length < length) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.subarray(0, length).toString() };
}

/**
 * A client too slow for its stream: it sends a GET and never reads a byte of the answer, so the
 * kernel's buffers fill and whatever the server writes next piles up in the server's memory.
 * Resolves once the request is sent.
 */
export function neverReading(url: string, path: string, headers: Record<string, string>): Promise<Socket> {
  const { host, hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.pause();
      const lines = [`GET ${path} HTTP/1.1`, `host: ${host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`, () => resolve(socket));
    });
    socket.on('error', reject);
  });
}
