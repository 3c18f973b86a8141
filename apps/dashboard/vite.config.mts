import type { UserConfig } from 'vite';

/**
 * `npm run dashboard:build` writes the static app to apps/dashboard/dist, which the gateway serves
 * at `/` (DASHBOARD_DIST_DIR). `npm run dev:dashboard` serves the sources on 127.0.0.1:5173 and
 * proxies the API, login and the sandbox to a running gateway (GATEWAY_URL, default `npm start`'s).
 */
const gateway = process.env.GATEWAY_URL || 'http://127.0.0.1:3000';
const proxied = ['/api', '/auth', '/docs', '/sandbox', '/subscriptions'];

const config: UserConfig = {
  root: import.meta.dirname,
  publicDir: 'public',
  // JSX with React's automatic runtime, by Vite's own transform: no plugin needed for a build.
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Hashed names under /assets: the gateway serves them as immutable.
    assetsDir: 'assets',
    sourcemap: false,
    rolldownOptions: {
      onwarn(warning, warn) {
        // React Query marks its modules "use client" for server components; meaningless in a bundle.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
    proxy: Object.fromEntries(proxied.map((prefix) => [prefix, { target: gateway, changeOrigin: false }])),
  },
};

export default config;
