/**
 * The composition root's alerts part (design.md §11): the alert service over the store, with the configured webhooks
 * (each secret read once from its 0600 file) and the real HTTP poster. compose.ts hands `service` to the producers of
 * conditions as their AlarmSink and to the routes.
 */
import { AlertService, type DeliveryOutcome } from './app/liveness/alert-service.js'
import { postWebhook } from './app/liveness/webhook-post.js'
import { readWebhookSecret } from './config-alerts.js'
import type { Config } from './config.js'
import type { Logger } from './log.js'
import type { Stores } from './store/interfaces.js'
import type { Clock, Random } from './util/clock.js'

export function composeAlerts(config: Config, stores: Stores, o: { leading: () => boolean; instance: string; clock: Clock; random: Random; log: Logger; delivered: (webhook: string, outcome: DeliveryOutcome) => void }): AlertService {
  const a = config.alerts
  return new AlertService({
    store: stores.alerts, transaction: stores.transaction, post: postWebhook, leading: o.leading, instance: o.instance, serviceUri: config.service_uri,
    webhooks: a.webhooks.map((w) => ({ name: w.name, url: w.url, events: w.events, secret: readWebhookSecret(w.secret_file) })),
    retry: { firstMs: a.retry_seconds * 1000, maxMs: a.max_retry_seconds * 1000, maxAttempts: a.max_attempts, timeoutMs: a.timeout_seconds * 1000 },
    clock: o.clock, random: o.random, log: o.log, delivered: o.delivered,
  })
}
