/**
 * The svc web console (design.md §8, issue 15): a client of svcd's JSON API in the browser, built with preact and
 * bundled by esbuild (scripts/build-ui.mjs) into dist/ui/, which svcd serves at /ui/.
 */
import { render } from 'preact'
import { App } from './app.js'

const root = document.getElementById('app')
if (root) {
  root.textContent = ''
  render(<App />, root)
}
