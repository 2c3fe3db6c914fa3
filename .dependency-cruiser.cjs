/** Layer rules of DESIGN.md §1, checked by `npm run lint`. */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment:
        'domain/ imports only domain/, contracts/ (wire types) and pure libraries (no Fastify, Kysely, pg, undici, pino, node I/O).',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: {
        path: '^src/(?!domain/|contracts/)|node_modules/(fastify|@fastify|kysely|pg|better-sqlite3|undici|pino|standardwebhooks)/',
      },
    },
    {
      name: 'contracts-are-leaves',
      comment:
        'contracts/ (the Paygate v2 wire schemas) import only TypeBox: domain/, http/, hosted/ and notifications/ may use them.',
      severity: 'error',
      from: { path: '^src/contracts/' },
      to: { path: '^src/(?!contracts/)|node_modules/(?!typebox/)' },
    },
    {
      name: 'client-stands-alone',
      comment: 'client/ (kassa/client, for merchants) uses only its generated types and libraries; no room imports it.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^src/(?!client/)' },
    },
    {
      name: 'nothing-imports-client',
      severity: 'error',
      from: { path: '^src/(?!client/)' },
      to: { path: '^src/client/' },
    },
    {
      name: 'domain-no-node-io',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^(node:)?(fs|net|http|https|tls|child_process|dgram)$', dependencyTypes: ['core'] },
    },
    {
      name: 'adapters-not-http',
      comment: 'storage/, integrations/, notifications/ implement domain ports and never import http/ or hosted/.',
      severity: 'error',
      from: { path: '^src/(storage|integrations|notifications)/' },
      to: { path: '^src/(http|hosted)/' },
    },
    {
      name: 'http-not-storage',
      comment: 'http/ and hosted/ call domain services, never storage directly.',
      severity: 'error',
      from: { path: '^src/(http|hosted)/' },
      to: { path: '^src/storage/' },
    },
    {
      name: 'only-app-wires-concretes',
      comment:
        'Simulators are adapters: only the composition root (app.ts, services.ts) and the CLI entry choose them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(app|services|main)\\.ts$|^src/integrations/' },
      to: { path: '^src/integrations/' },
    },
    {
      name: 'server-and-cli-are-outer',
      comment:
        'server/ (lifecycle, background jobs, demo) and cli/ (commands) sit beside app.ts; no room imports them.',
      severity: 'error',
      from: { path: '^src/(domain|contracts|config|storage|integrations|notifications|http|hosted)/' },
      to: { path: '^src/(server|cli)/|^src/(app|services|main)\\.ts$' },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
