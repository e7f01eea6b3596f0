/**
 * The Redis of the tests that need one — the rate limit's shared store, the Mercure bus — (`TEST_REDIS_URL`, default
 * 127.0.0.1:6379), probed once. Unreachable, those tests are skipped with a loud notice, except with `CI=true`, where
 * that is a failure.
 */
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<boolean> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // The failure is the answer: ioredis would print it as an unhandled error event besides.
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export const redisAvailable = await redisAnswers();
if (!redisAvailable) {
  if (process.env.CI === 'true')
    throw new Error(
      `Redis is unreachable at ${REDIS_URL} and CI=true: the rate limit's store and the Mercure bus must be tested.`,
    );
  console.warn(
    `\n*** Redis is unreachable at ${REDIS_URL}: the tests that need Redis (rate-limit store, Mercure bus) are SKIPPED. ***\n`,
  );
}
