/**
 * The API calls of change plans (api/plans.ts; design.md §12), as calls.ts makes the others: what `svcc plan …` sends
 * (or prints with `--api`).
 */
import type { ChangeControlJson, PlanApplyJson, PlanCreateJson, PlanJson, PlanListJson, PlanRejectJson, PlanStatus, PlanSuggestedJson } from '../api/plans.js'
import type { ApiCall, HttpMethod } from './api-client.js'
import { seg } from './calls.js'

function call<T>(method: HttpMethod, path: string, body?: unknown): ApiCall<T> {
  return body === undefined ? { method, path, expect: 'json' } : { method, path, expect: 'json', body }
}

const plans = (ca: string) => `/api/v1/cas/${seg(ca)}/plans`

export const planCalls = {
  planList: (ca: string, q: { status?: PlanStatus; offset?: number; limit?: number } = {}): ApiCall<PlanListJson> => {
    const query = new URLSearchParams()
    if (q.status !== undefined) query.set('status', q.status)
    if (q.offset !== undefined) query.set('offset', String(q.offset))
    if (q.limit !== undefined) query.set('limit', String(q.limit))
    const text = query.toString()
    return call('GET', `${plans(ca)}${text ? `?${text}` : ''}`)
  },
  planCreate: (ca: string, body: PlanCreateJson): ApiCall<PlanJson> => call('POST', plans(ca), body),
  planSuggested: (ca: string, body: PlanSuggestedJson = {}): ApiCall<PlanJson> => call('POST', `${plans(ca)}/suggested`, body),
  planShow: (ca: string, id: number): ApiCall<PlanJson> => call('GET', `${plans(ca)}/${id}`),
  planApprove: (ca: string, id: number, body: PlanApplyJson & { apply?: boolean }): ApiCall<PlanJson> => call('POST', `${plans(ca)}/${id}/approve`, body),
  planApply: (ca: string, id: number, body: PlanApplyJson): ApiCall<PlanJson> => call('POST', `${plans(ca)}/${id}/apply`, body),
  planReject: (ca: string, id: number, body: PlanRejectJson): ApiCall<PlanJson> => call('POST', `${plans(ca)}/${id}/reject`, body),
  planWithdraw: (ca: string, id: number): ApiCall<PlanJson> => call('POST', `${plans(ca)}/${id}/withdraw`),
  changeControl: (ca: string): ApiCall<ChangeControlJson> => call('GET', `/api/v1/cas/${seg(ca)}/change-control`),
  changeControlUpdate: (ca: string, body: ChangeControlJson): ApiCall<ChangeControlJson> => call('POST', `/api/v1/cas/${seg(ca)}/change-control`, body),
}
