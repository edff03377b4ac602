import type { ClientRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The UI: Preact components (TypeScript and JSX) and CSS in ui/, built to dist/ui, which the backend serves at `/`
// (`class-assistant-backend --ui-dir dist/ui`; the launcher passes it). `pnpm dev` serves it
// with hot reload and forwards /api to a backend on 127.0.0.1:8765.
export default defineConfig({
  root: fileURLToPath(new URL('./ui', import.meta.url)),
  base: '/',
  // Preact's automatic JSX runtime (ui/tsconfig.json says the same to the type checker).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('./dist/ui', import.meta.url)),
    emptyOutDir: true,
    // Chromium-family app windows (Document Picture-in-Picture needs 116+).
    target: 'chrome116',
    assetsDir: 'assets',
    reportCompressedSize: false,
    modulePreload: { polyfill: false },
  },
  server: {
    port: 5173,
    strictPort: true,
    proxy: {
      '/api': {
        target: 'http://127.0.0.1:8765',
        // The capture socket (/api/ws/capture) goes through too.
        ws: true,
        // The backend refuses foreign origins; through the proxy the page is its own.
        configure(proxy) {
          const ownPage = (request: ClientRequest) => {
            request.removeHeader('origin');
            request.setHeader('host', '127.0.0.1:8765');
          };
          proxy.on('proxyReq', ownPage);
          proxy.on('proxyReqWs', ownPage);
        },
      },
    },
  },
});
