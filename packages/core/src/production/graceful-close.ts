/**
 * Graceful close: once `app.close()` starts, every response still being sent carries `Connection: close`, so Node ends
 * its keep-alive connection after it. Without it, a connection that served a request in flight would stay open until
 * the client or `keepAliveTimeout` (72 s) ends it, and hold up the close that long. New requests during the close get
 * Fastify's 503 (`return503OnClosing`); idle connections are closed by Fastify (`forceCloseConnections: 'idle'`).
 */
import type { FastifyInstance } from 'fastify';

export function registerGracefulClose(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
