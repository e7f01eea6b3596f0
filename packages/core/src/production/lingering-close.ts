/**
 * Lingering close for refused bodies. A 413 is answered as soon as the body is known to be too large (from its
 * Content-Length, or once the limit is passed), with `Connection: close`, and Node then ends the connection at once:
 * the client, still sending, has its connection closed (or reset) under it, and often never reads the 413 (a Node
 * `http` client gets `EPIPE`, or sees the socket destroyed halfway through its body). As nginx's lingering close
 * does, the connection stays open after the answer while the rest of the body arrives and is thrown away, so the
 * client finishes sending and reads its 413; then it closes. The wait is bounded: past `LINGER_BYTES` more bytes or
 * `LINGER_MS`, the connection is cut, so a body without end is never read forever.
 */
import { Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** The most bytes of a refused body read (and thrown away) after the 413, before the connection is cut. */
export const LINGER_BYTES = 4 * 1024 * 1024;
/** The longest the connection waits for the end of a refused body after the 413. */
export const LINGER_MS = 5000;

/**
 * Reads and throws away the rest of this request's body, and makes Node's close of its connection (after a response
 * with `Connection: close`, Node calls the socket's `destroySoon`) wait for the end of that body, up to the bounds:
 * an own property of this socket only.
 */
function lingerBeforeClose(request: IncomingMessage): void {
  const socket = request.socket;
  // Only a real connection (`inject()` has none), only while the body is still coming, and only once.
  if (!(socket instanceof Socket) || request.complete || Object.hasOwn(socket, 'destroySoon')) return;
  const close = socket.destroySoon.bind(socket);
  let read = 0;
  let closing = false;
  const stop = () => {
    clearTimeout(timer);
    request.removeListener('data', count);
  };
  // Past a bound: cut the connection (the client may then see a reset, as it would without lingering).
  const cut = () => {
    stop();
    socket.destroy();
  };
  // Read here, a listener of our own: Node then does not "dump" the body (which it reads without counting).
  const count = (chunk: Buffer) => {
    read += chunk.length;
    if (read > LINGER_BYTES) cut();
  };
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  request.on('data', count);
  // The body read to its end: close as Node would have, once the response is out.
  request.once('end', () => {
    stop();
    if (closing) close();
  });
  socket.once('close', stop);
  socket.destroySoon = () => {
    closing = true;
    if (request.complete) close();
  };
}

/** Every 413 (on every route: REST, `/api/auth`, `/graphql`) closes its connection only after a bounded linger. */
export function registerLingeringClose(app: FastifyInstance): void {
  // A callback hook, not an async one: no promise per response.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 413) {
      reply.header('connection', 'close');
      lingerBeforeClose(request.raw);
    }
    done(null, payload);
  });
}
