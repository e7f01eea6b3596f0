/**
 * Work that start-up need not wait for, done right after the server starts listening: one step per turn of the event
 * loop, so a request that arrives meanwhile is served between two steps instead of after all of them. Each step must
 * be one that a request can also do itself when it needs it first (compiling a validator it has not found). An app
 * that never listens (`inject()` only) skips the warm-up; its requests do each step when they need it.
 */
import type { FastifyInstance } from 'fastify';

export function warmUpAfterListen(app: FastifyInstance, pendingSteps: () => (() => void)[]): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onListen', (done) => {
    const steps = pendingSteps();
    const count = steps.length;
    const next = (): void => {
      if (closing) return;
      const step = steps.shift();
      if (!step) return void app.log.debug({ steps: count }, 'start-up steps done after listening');
      try {
        step();
      } catch (error) {
        // The request that needs this step will meet the same error and answer it; the other steps still run.
        app.log.error({ err: error }, 'a start-up step done after listening failed');
      }
      setImmediate(next);
    };
    setImmediate(next);
    done();
  });
}
