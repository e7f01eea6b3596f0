/**
 * The never-stale check over real connections: a writer renames one author `v1`, `v2`, … one write after the other,
 * through the origins given in turn, while readers read the author and the authors' list through the origins given
 * (instances, or a Varnish in front); a read that started after `vN` was answered must show `vN` or later. Returns
 * what was stale (empty when nothing was), and how many reads were made and how many came from a cache.
 */

export interface NeverStaleRun {
  readonly stale: string[];
  readonly reads: number;
  /** Reads answered from a cache (`X-Cache: HIT`, or Varnish's `Age` above zero / `X-Varnish` with two ids). */
  readonly hits: number;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Whether a response came from a cache: the framework's (`X-Cache: HIT`) or Varnish's (`X-Varnish: <id> <id>`). */
const isHit = (response: Response): boolean =>
  response.headers.get('x-cache') === 'HIT' || /^\d+ \d+$/.test(response.headers.get('x-varnish') ?? '');

export async function runNeverStale(options: {
  /** Where the writes go, in turn. */
  readonly writeTo: readonly string[];
  /** Where the reads go, in turn. */
  readonly readFrom: readonly string[];
  readonly writes: number;
  readonly readers: number;
  /** Headers of the writes (credentials, where writes need them). */
  readonly writeHeaders?: Record<string, string>;
}): Promise<NeverStaleRun> {
  const writeHeaders = options.writeHeaders ?? {};
  const { writeTo, readFrom } = options;
  const created = await fetch(`${writeTo[0]}/api/authors`, {
    method: 'POST',
    headers: { 'content-type': 'application/ld+json', ...writeHeaders },
    body: JSON.stringify({ name: 'v0' }),
  });
  if (created.status !== 201) throw new Error(`could not create the author: ${created.status}`);
  const iri = ((await created.json()) as { '@id': string })['@id'];
  let acknowledged = 0;
  let writing = true;
  let reads = 0;
  let hits = 0;
  const stale: string[] = [];

  /** Reads `url` through `origin`, and notes it stale if it shows less than what was acknowledged before. */
  const check = async (origin: string, url: string): Promise<void> => {
    const floor = acknowledged;
    const response = await fetch(`${origin}${url}`, { headers: { accept: 'application/ld+json' } });
    const body = (await response.json()) as { name?: string; 'hydra:member'?: { '@id': string; name: string }[] };
    const name = url === iri ? body.name : body['hydra:member']?.find((member) => member['@id'] === iri)?.name;
    const version = Number(name?.slice(1));
    if (!(version >= floor)) stale.push(`${origin}${url} showed ${name} after v${floor} was answered`);
    reads++;
    if (isHit(response)) hits++;
  };
  const reader = async (index: number): Promise<void> => {
    let turn = index;
    while (writing && stale.length === 0) {
      await check(readFrom[turn % readFrom.length]!, turn % 2 === 0 ? iri : '/api/authors');
      turn++;
    }
  };
  const readers = Array.from({ length: options.readers }, (_, index) => reader(index));
  for (let version = 1; version <= options.writes && stale.length === 0; version++) {
    const response = await fetch(`${writeTo[version % writeTo.length]}${iri}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json', ...writeHeaders },
      body: JSON.stringify({ name: `v${version}` }),
    });
    if (response.status !== 200) throw new Error(`write v${version} answered ${response.status}`);
    acknowledged = version;
    // The sharpest case: the very next moment, through every origin (another instance, whose purge travels).
    await Promise.all(readFrom.flatMap((origin) => [check(origin, iri), check(origin, '/api/authors')]));
    // Reads between the writes fill the caches again, so that the next write has something to purge.
    await sleep(5);
  }
  writing = false;
  await Promise.all(readers);
  return { stale, reads, hits };
}
