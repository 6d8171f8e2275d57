import { readFile } from 'node:fs/promises';

import { argsOf, pairsOf, parseDockerfile, type Dockerfile } from '../helpers/dockerfile.js';

/**
 * The builders partners have: the image must build unchanged on each from these versions on
 * (Debian 12 ships podman 4.3 and buildah 1.28; Ubuntu 24.04 podman 4.9; Docker Engine 20.10
 * is the oldest still in wide use).
 */
const TARGETS = { docker: '20.10', podman: '4.0', buildah: '1.28' } as const;
type Builder = keyof typeof TARGETS;

/**
 * The first version of each builder that accepts an instruction or flag; null: none of our
 * targets does, or only behind a setting (BuildKit on Docker 20.10). Docker counts its legacy
 * builder (the default before 23.0). Sources:
 * - Docker: the Dockerfile reference (docs.docker.com/reference/dockerfile, whose notes give the
 *   version each flag needs) and the Engine release notes (multi-stage builds and COPY --from in
 *   17.05, COPY --chown in 17.09, HEALTHCHECK in 1.12 with --start-period from 17.05,
 *   --start-interval from 25.0 / API 1.44, BuildKit the default builder from 23.0).
 * - Podman and Buildah: Buildah's release notes and podman issue 21701 (podman 4 and buildah
 *   before 1.35 refuse HEALTHCHECK --start-interval: "flag provided but not defined"); podman
 *   builds with Buildah, so it accepts what its Buildah does. Everything else listed here
 *   Buildah has taken since before 1.0 (multi-stage builds, COPY --from and --chown).
 * - This machine: podman 4.3.1 / buildah 1.28.2 build this Dockerfile (docs/development.md).
 */
const ACCEPTED: Record<string, Record<Builder, string | null>> = {
  FROM: { docker: '1.0', podman: '1.0', buildah: '1.0' },
  'FROM AS': { docker: '17.05', podman: '1.0', buildah: '1.0' },
  'FROM --platform': { docker: '20.10', podman: '1.0', buildah: '1.0' },
  WORKDIR: { docker: '1.0', podman: '1.0', buildah: '1.0' },
  COPY: { docker: '1.0', podman: '1.0', buildah: '1.0' },
  'COPY --from': { docker: '17.05', podman: '1.0', buildah: '1.0' },
  'COPY --chown': { docker: '17.09', podman: '1.0', buildah: '1.0' },
  'COPY --chmod': { docker: null, podman: '4.0', buildah: '1.24' },
  'COPY --link': { docker: null, podman: null, buildah: null },
  RUN: { docker: '1.0', podman: '1.0', buildah: '1.0' },
  'RUN --mount': { docker: null, podman: '2.0', buildah: '1.16' },
  ENV: { docker: '1.0', podman: '1.0', buildah: '1.0' },
  ARG: { docker: '1.9', podman: '1.0', buildah: '1.0' },
  LABEL: { docker: '1.6', podman: '1.0', buildah: '1.0' },
  USER: { docker: '1.0', podman: '1.0', buildah: '1.0' },
  EXPOSE: { docker: '1.0', podman: '1.0', buildah: '1.0' },
  VOLUME: { docker: '1.0', podman: '1.0', buildah: '1.0' },
  CMD: { docker: '1.0', podman: '1.0', buildah: '1.0' },
  ENTRYPOINT: { docker: '1.0', podman: '1.0', buildah: '1.0' },
  STOPSIGNAL: { docker: '1.9', podman: '1.0', buildah: '1.0' },
  HEALTHCHECK: { docker: '1.12', podman: '1.0', buildah: '1.0' },
  'HEALTHCHECK --interval': { docker: '1.12', podman: '1.0', buildah: '1.0' },
  'HEALTHCHECK --timeout': { docker: '1.12', podman: '1.0', buildah: '1.0' },
  'HEALTHCHECK --retries': { docker: '1.12', podman: '1.0', buildah: '1.0' },
  'HEALTHCHECK --start-period': { docker: '17.05', podman: '1.0', buildah: '1.0' },
  'HEALTHCHECK --start-interval': { docker: '25.0', podman: '5.0', buildah: '1.35' },
  // A parser directive: under BuildKit it pulls the named frontend image (docker/dockerfile) from Docker Hub.
  '# syntax': { docker: null, podman: null, buildah: null },
};

const newer = (version: string, than: string): boolean => {
  const [a, b] = [version, than].map((v) => v.split('.').map(Number));
  for (let i = 0; i < Math.max(a!.length, b!.length); i++)
    if ((a![i] ?? 0) !== (b![i] ?? 0)) return (a![i] ?? 0) > (b![i] ?? 0);
  return false;
};

/** Every instruction and flag the file uses, by the table's names, with the line that uses it. */
function featuresOf(dockerfile: Dockerfile): { feature: string; line: number }[] {
  const used = Object.keys(dockerfile.directives).map((name) => ({ feature: `# ${name}`, line: 1 }));
  for (const stage of dockerfile.stages) {
    for (const instruction of [stage.from, ...stage.instructions]) {
      used.push({ feature: instruction.keyword, line: instruction.line });
      for (const [flag] of instruction.flags)
        used.push({ feature: `${instruction.keyword} --${flag}`, line: instruction.line });
    }
    if (stage.name !== null) used.push({ feature: 'FROM AS', line: stage.from.line });
  }
  return used;
}

/** What the builders would refuse in a Dockerfile's text. */
function refusals(text: string): string[] {
  return featuresOf(parseDockerfile(text)).flatMap(({ feature, line }) => {
    const accepted = ACCEPTED[feature];
    if (!accepted)
      return [
        `line ${line}: ${feature} is not in the table: add it with the version of each builder that accepts it, and its source`,
      ];
    return (Object.keys(TARGETS) as Builder[])
      .filter((builder) => accepted[builder] === null || newer(accepted[builder], TARGETS[builder]))
      .map(
        (builder) =>
          `line ${line}: ${feature} needs ${builder} ${accepted[builder] ?? '(none of the targets)'}; the image must build on ${builder} ${TARGETS[builder]}`,
      );
  });
}

describe('the Dockerfile', () => {
  let text: string;
  let dockerfile: Dockerfile;
  let pkg: { name: string; version: string; description: string; license: string; scripts: { start: string } };

  beforeAll(async () => {
    text = await readFile('Dockerfile', 'utf8');
    dockerfile = parseDockerfile(text);
    pkg = JSON.parse(await readFile('package.json', 'utf8')) as typeof pkg;
  });

  it('uses only instructions and flags that Docker Engine 20.10, Podman 4 and Buildah 1.28 accept', () => {
    expect(refusals(text)).toEqual([]);
    // The table knows what the image once had and what a builder would refuse.
    expect(refusals(text.replace(/^HEALTHCHECK /m, 'HEALTHCHECK --start-interval=250ms '))).toEqual([
      expect.stringMatching(/: HEALTHCHECK --start-interval needs docker 25\.0; /),
      expect.stringMatching(/: HEALTHCHECK --start-interval needs podman 5\.0; /),
      expect.stringMatching(/: HEALTHCHECK --start-interval needs buildah 1\.35; /),
    ]);
    expect(refusals(`# syntax=docker/dockerfile:1\n${text}`)).toHaveLength(3);
    expect(refusals(`${text}\nONBUILD RUN true\n`)).toEqual([expect.stringMatching(/ONBUILD is not in the table/)]);
  });

  it('builds on Node 24, runs as the node user, checks /healthz and starts the bundled server', () => {
    const froms = dockerfile.stages.map((s) => s.from.args.split(' ')[0]);
    expect(new Set(froms)).toEqual(new Set(['node:24-bookworm-slim']));
    const runtime = dockerfile.stages.at(-1)!;
    expect(argsOf(runtime, 'USER')).toEqual(['node']);
    const [healthcheck] = runtime.instructions.filter((i) => i.keyword === 'HEALTHCHECK');
    expect(healthcheck!.args).toBe('CMD ["node", "dist/water-sandbox-healthcheck.js"]');
    expect(Object.fromEntries(healthcheck!.flags)).toEqual({
      interval: '10s',
      timeout: '3s',
      'start-period': '10s',
      retries: '3',
    });
    const startFlags = pkg.scripts.start.split(' ').filter((w) => w.startsWith('--'));
    expect(argsOf(runtime, 'CMD')).toEqual([
      JSON.stringify(['node', ...startFlags, 'dist/water-sandbox.js']).replace(/","/g, '", "'),
    ]);
    expect(pairsOf(argsOf(runtime, 'ENV').join(' '))).toMatchObject({
      DATA_DIR: '/data',
      HOST: '0.0.0.0',
      PORT: '8080',
    });
    // The runtime stage gets the bundles, not node_modules (test/contracts/image.test.ts starts it).
    const instructions = text
      .split('\n')
      .filter((line) => !line.startsWith('#'))
      .join('\n');
    expect(instructions).not.toMatch(/node_modules|--omit=dev/);
  });

  it("carries the OCI labels: package.json's title, description, version and licence, and the source and revision given at build", () => {
    const runtime = dockerfile.stages.at(-1)!;
    const labels = pairsOf(argsOf(runtime, 'LABEL').join(' '));
    expect(labels).toEqual({
      'org.opencontainers.image.title': pkg.name,
      'org.opencontainers.image.description': pkg.description,
      'org.opencontainers.image.version': pkg.version,
      'org.opencontainers.image.licenses': pkg.license,
      'org.opencontainers.image.source': '${SOURCE_URL}',
      'org.opencontainers.image.revision': '${REVISION}',
    });
    expect(argsOf(runtime, 'ARG')).toEqual(['SOURCE_URL=""', 'REVISION=""']);
  });
});
