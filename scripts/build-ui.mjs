/**
 * Build the web console (design.md §8, issue 15): esbuild bundles src/ui/main.tsx (preact, JSX) and src/ui/style.css into
 * dist/ui/assets/ with content-hashed names, and index.html names them. Nothing is loaded from other hosts; svcd
 * serves dist/ui/ at /ui/ (src/http/routes/ui.ts). `node scripts/build-ui.mjs [outdir]`; run by `make build`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { build } from 'esbuild'

const out = process.argv[2] ?? 'dist/ui'
rmSync(out, { recursive: true, force: true })
mkdirSync(join(out, 'assets'), { recursive: true })
const result = await build({
  entryPoints: ['src/ui/main.tsx', 'src/ui/style.css'],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  banner: { js: '/* svc console */', css: '/* svc console */' },
  logLevel: 'warning',
})
const names = Object.keys(result.metafile.outputs).map((f) => basename(f))
const js = names.find((n) => n.endsWith('.js'))
const css = names.find((n) => n.endsWith('.css'))
if (!js || !css) throw new Error(`esbuild wrote ${names.join(', ')}: expected one .js and one .css`)
const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/ui/assets/${css}">
<script type="module" src="/ui/assets/${js}"></script>
</head>
<body>
<div id="app"><noscript>The svc console needs JavaScript.</noscript></div>
</body>
</html>
`
writeFileSync(join(out, 'index.html'), html)
process.stdout.write(`console: ${out}/index.html, assets/${js}, assets/${css}\n`)
