/**
 * A Varnish of the tests' own (Debian's `varnish` with `varnish-modules`), in front of the apps given, with the VCL the
 * package ships (`varnish/resource-api.vcl`) included: started on a free port of 127.0.0.1 with a working directory
 * of its own, stopped by `stop`. Unavailable (no `varnishd`, no xkey module), its tests are skipped with a loud notice,
 * except with `CI=true`, where that is a failure (`.ci/run` installs both).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const VARNISHD = '/usr/sbin/varnishd';
const VCL = resolve(fileURLToPath(import.meta.url), '../../../varnish/resource-api.vcl');

/** Whether the xkey module of varnish-modules is installed where varnishd looks for modules. */
const hasXkey = (): boolean =>
  [
    '/usr/lib/x86_64-linux-gnu/varnish/vmods',
    '/usr/lib/aarch64-linux-gnu/varnish/vmods',
    '/usr/lib/varnish/vmods',
  ].some((directory) => existsSync(directory) && readdirSync(directory).includes('libvmod_xkey.so'));

export const varnishAvailable = existsSync(VARNISHD) && hasXkey();
if (!varnishAvailable) {
  if (process.env.CI === 'true')
    throw new Error(
      'Varnish (varnishd with the xkey module of varnish-modules) is missing and CI=true: it must be tested.',
    );
  console.warn(
    '\n*** Varnish is missing (apt-get install varnish varnish-modules): the tests with Varnish in front are SKIPPED. ***\n',
  );
}

/** A port of 127.0.0.1 nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  return typeof address === 'object' && address ? address.port : 0;
}

export interface RunningVarnish {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  stop(): Promise<void>;
}

/**
 * Starts Varnish in front of `backends` (origins of listening apps), round robin when there are several, on `port`
 * (the apps' purgers must know it before Varnish can know them).
 */
export async function startVarnish(backends: readonly string[], port: number): Promise<RunningVarnish> {
  const directory = mkdtempSync(join(tmpdir(), 'resource-api-varnish-'));
  // varnishd, started as root, reads its VCL as its own unprivileged user: the files must be where that user can.
  chmodSync(directory, 0o755);
  copyFileSync(VCL, join(directory, 'resource-api.vcl'));
  const declared = backends.map((origin, index) => {
    const url = new URL(origin);
    return `backend app${index} { .host = "${url.hostname}"; .port = "${url.port}"; }`;
  });
  writeFileSync(
    join(directory, 'main.vcl'),
    [
      'vcl 4.1;',
      'import directors;',
      ...declared,
      'sub vcl_init {',
      '  new apps = directors.round_robin();',
      ...backends.map((_, index) => `  apps.add_backend(app${index});`),
      '}',
      'sub vcl_recv {',
      '  set req.backend_hint = apps.backend();',
      '}',
      `include "${join(directory, 'resource-api.vcl')}";`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(
    VARNISHD,
    ['-F', '-n', join(directory, 'work'), '-a', `127.0.0.1:${port}`, '-f', join(directory, 'main.vcl')].concat([
      '-s',
      'malloc,32m',
      '-T',
      'none',
      '-p',
      'default_grace=0',
    ]),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((done) => setTimeout(done, 5_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  };
  // Up once it answers anything (a synthetic 400 to a PURGE without tags).
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) break;
    const answered = await fetch(origin, { method: 'PURGE' }).then(
      (response) => response.status,
      () => 0,
    );
    if (answered !== 0) return { origin, stop };
    await new Promise((done) => setTimeout(done, 100));
  }
  await stop();
  throw new Error(`Varnish did not start:\n${output}`);
}
