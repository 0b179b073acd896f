/**
 * The configuration of the BGP analysis and of the ROA delta body limit (issue 15 items 4 and 5): off by default (no
 * download from svcd unless asked), Krill's RIS whois URLs and refresh as defaults, the sources that are accepted,
 * and a delta limit of its own that leaves post_limit_api as it is.
 */
import t from 'tap'
import { applyToml, defaults, verifyConfig, type Config } from '../../src/config.js'

const load = (text: string): Config => {
  const c = defaults()
  applyToml(c, text, 'test.toml')
  verifyConfig(c, 'test.toml')
  return c
}

t.test('defaults: off, RIPE RIS dumps hourly when turned on, 6 peers; a 32 MiB ROA delta limit beside the 256 KiB API limit', async (t) => {
  const c = defaults()
  t.equal(c.bgp_riswhois_enabled, false, 'svcd fetches nothing unless configured to')
  t.equal(c.bgp_riswhois_v4_uri, 'https://www.ris.ripe.net/dumps/riswhoisdump.IPv4.gz')
  t.equal(c.bgp_riswhois_v6_uri, 'https://www.ris.ripe.net/dumps/riswhoisdump.IPv6.gz')
  t.equal(c.bgp_riswhois_refresh_seconds, 3600, "Krill's bgp_riswhois_refresh_minutes = 60")
  t.equal(c.bgp_riswhois_min_peers, 6, "Krill's MINIMUM_SEEN_BY")
  t.equal(c.post_limit_api, 256 * 1024)
  t.equal(c.post_limit_api_routes, 32 * 1024 * 1024, 'room for 50,000 and more authorisations with comments')
})

t.test('sources: http(s) and file URLs, paths, or empty for no family; anything else stops start-up', async (t) => {
  const c = load('bgp_riswhois_enabled = true\nbgp_riswhois_v4_uri = "http://127.0.0.1:8080/v4.gz"\nbgp_riswhois_v6_uri = ""\nbgp_riswhois_refresh_seconds = 5\nbgp_riswhois_min_peers = 0')
  t.equal(c.bgp_riswhois_v4_uri, 'http://127.0.0.1:8080/v4.gz')
  t.equal(c.bgp_riswhois_v6_uri, '', 'no IPv6 dump')
  t.equal(load('bgp_riswhois_v4_uri = "file:///var/lib/svc/riswhoisdump.IPv4.gz"').bgp_riswhois_v4_uri, 'file:///var/lib/svc/riswhoisdump.IPv4.gz')
  t.equal(load('bgp_riswhois_v4_uri = "/var/lib/svc/riswhoisdump.IPv4"').bgp_riswhois_v4_uri, '/var/lib/svc/riswhoisdump.IPv4')
  t.throws(() => load('bgp_riswhois_v4_uri = "ftp://example.net/v4.gz"'), /key 'bgp_riswhois_v4_uri' must be an http:\/\/, https:\/\/ or file:\/\/ URL, or a file path/)
  t.throws(() => load('bgp_riswhois_enabled = true\nbgp_riswhois_v4_uri = ""\nbgp_riswhois_v6_uri = ""'), /key 'bgp_riswhois_enabled' needs bgp_riswhois_v4_uri or bgp_riswhois_v6_uri/)
  t.throws(() => load('bgp_riswhois_refresh_seconds = 0'), /must be at least 1/)
  t.throws(() => load('bgp_riswhois_enabled = "yes"'), /must be true or false/)
  t.throws(() => load('post_limit_api_routes = 100'), /must be at least 1024/)
  t.equal(load('post_limit_api_routes = 67108864').post_limit_api, 256 * 1024, 'post_limit_api stays for the other routes')
})
