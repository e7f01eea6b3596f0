/**
 * Work that start-up need not wait for, done right after the server starts listening: one step per turn of the event
 * loop, so a request that arrives meanwhile is served between two steps instead of after all of them. Each step must
 * be one that a request can also do itself when it needs it first (compiling a validator it has not found). An app
 * that never listens (`inject()` only) skips the warm-up; its requests do each step when they need it.
 *
 * The first step waits a little after `listen`: the requests that come the moment the server listens (a readiness
 * probe, a load balancer's health check, the first clients) would otherwise share each turn of their way through the
 * server with a step of several milliseconds, and answer later than they would without a warm-up.
 */
import type { FastifyInstance } from 'fastify';

/** How long after `listen` the first step waits (see performance.md, the start-up). */
const FIRST_STEP_DELAY_MS = 100;

export function warmUpAfterListen(app: FastifyInstance, pendingSteps: () => (() => void)[]): void {
  let closing = false;
  let firstStep: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    closing = true;
    clearTimeout(firstStep);
    done();
  });
  app.addHook('onListen', (done) => {
    const next = (steps: (() => void)[], count: number): void => {
      if (closing) return;
      const step = steps.shift();
      if (!step) return void app.log.debug({ steps: count }, 'start-up steps done after listening');
      try {
        step();
      } catch (error) {
        // The request that needs this step will meet the same error and answer it; the other steps still run.
        app.log.error({ err: error }, 'a start-up step done after listening failed');
      }
      setImmediate(next, steps, count);
    };
    firstStep = setTimeout(() => {
      // Taken when the first step runs: a request served meanwhile may have done some steps itself.
      const steps = pendingSteps();
      next(steps, steps.length);
    }, FIRST_STEP_DELAY_MS);
    done();
  });
}
