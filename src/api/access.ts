/**
 * Who may do what (design.md §9; krill-reference.md §1.2; krill:src/daemon/http/auth/{permissions,roles}.rs):
 * Krill's permission names, its configuration shortcuts (`any`, `read`, `update`), its three default roles, and the
 * one rule of a role that is limited to a list of CAs. Pure: the HTTP edge checks a request's permission with it
 * (http/route-permissions.ts), the services narrow lists with it, and scoped API tokens are checked against it.
 */

/** Every permission, with Krill's names; the order is Krill's. */
export const PERMISSIONS = [
  'login',
  'pub-admin',
  'pub-list',
  'pub-read',
  'pub-create',
  'pub-delete',
  'ca-list',
  'ca-read',
  'ca-create',
  'ca-update',
  'ca-admin',
  'ca-delete',
  'routes-read',
  'routes-update',
  'routes-analysis',
  'aspas-read',
  'aspas-update',
  'aspas-analysis',
  'bgpsec-read',
  'bgpsec-update',
  'rta-list',
  'rta-read',
  'rta-update',
  // svcd's own (design.md §12): approving another user's change plan under four-eyes.
  'plans-approve',
] as const

export type Permission = (typeof PERMISSIONS)[number]

/** What each configuration shortcut stands for (Krill's `ConfPermission`: `any`, `read`, `update`). */
export const SHORTCUTS: Readonly<Record<'any' | 'read' | 'update', readonly Permission[]>> = {
  any: PERMISSIONS,
  read: ['ca-read', 'routes-read', 'aspas-read', 'bgpsec-read', 'rta-read'],
  update: ['routes-update', 'aspas-update', 'bgpsec-update', 'rta-update'],
}

/** A named set of permissions, optionally limited to a list of CAs (Krill's `[auth_roles]` entry). */
export interface Role {
  readonly name: string
  readonly permissions: ReadonlySet<Permission>
  /** When set, permissions on a CA hold only for these CAs (permissions that name no CA still hold). */
  readonly cas?: readonly string[]
}

const READONLY: readonly Permission[] = ['login', 'ca-list', 'ca-read', 'pub-list', 'pub-read', 'routes-read', 'routes-analysis', 'aspas-read', 'aspas-analysis', 'bgpsec-read', 'rta-list', 'rta-read']
const READWRITE: readonly Permission[] = [
  ...READONLY,
  'ca-create',
  'ca-update',
  'pub-create',
  'pub-delete',
  'routes-update',
  'aspas-update',
  'bgpsec-update',
  'rta-update',
  'plans-approve',
]

/**
 * Krill's default roles (krill:doc/manual/source/config.rst "auth_roles"): `admin` may do everything, `readwrite`
 * everything but deleting CAs and administering publishers and CA internals, `readonly` reads. The configuration may
 * redefine them and add its own.
 */
export const DEFAULT_ROLES: Readonly<Record<'admin' | 'readwrite' | 'readonly', Role>> = {
  admin: { name: 'admin', permissions: new Set(PERMISSIONS) },
  readwrite: { name: 'readwrite', permissions: new Set(READWRITE) },
  readonly: { name: 'readonly', permissions: new Set(READONLY) },
}

const isPermission = (s: string): s is Permission => (PERMISSIONS as readonly string[]).includes(s)

/**
 * The permissions that a configured list names (permissions and shortcuts); throws an Error naming the first unknown
 * name, for the config loader to report with its key.
 */
export function expandPermissions(names: readonly string[]): Set<Permission> {
  const out = new Set<Permission>()
  for (const name of names) {
    if (isPermission(name)) out.add(name)
    else if (Object.hasOwn(SHORTCUTS, name)) for (const p of SHORTCUTS[name as keyof typeof SHORTCUTS]) out.add(p)
    else throw new Error(`unknown permission '${name}' (known: ${[...PERMISSIONS, ...Object.keys(SHORTCUTS)].join(', ')})`)
  }
  return out
}

/**
 * Whether `role` holds `permission`; for a request about a CA, on that CA (Krill's `Role::is_allowed`): a role limited
 * to a list of CAs holds nothing on any other CA.
 */
export function roleAllows(role: Role, permission: Permission, ca?: string): boolean {
  if (!role.permissions.has(permission)) return false
  return ca === undefined || role.cas === undefined || role.cas.includes(ca)
}

/** Whether `role` may see `ca` at all (read it, or anything in it): the filter of every list of CAs. */
export function roleSeesCa(role: Role, ca: string): boolean {
  return roleAllows(role, 'ca-read', ca)
}

/**
 * What `narrow` grants that `wide` does not (a scoped API token's role is never wider than its creator's): the first
 * permission it holds that `wide` lacks, or the first CA it reaches that `wide` does not; undefined when it is within.
 */
export function widerThan(narrow: Role, wide: Role): { permission: Permission } | { ca: string } | undefined {
  const permission = PERMISSIONS.find((p) => narrow.permissions.has(p) && !wide.permissions.has(p))
  if (permission) return { permission }
  if (wide.cas === undefined) return undefined
  if (narrow.cas === undefined) return { ca: '*' }
  const ca = narrow.cas.find((c) => !wide.cas!.includes(c))
  return ca === undefined ? undefined : { ca }
}

/** Whether `narrow` grants nothing that `wide` does not. */
export function roleWithin(narrow: Role, wide: Role): boolean {
  return widerThan(narrow, wide) === undefined
}

/**
 * Whether a role holds every permission on every CA: an administrator (every token, the whole audit trail, and any
 * route that is not in the route table).
 */
export function holdsEverything(role: Role): boolean {
  return role.cas === undefined && PERMISSIONS.every((p) => role.permissions.has(p))
}

/** The permissions of a role as a sorted list, in Krill's order (for JSON). */
export function permissionList(role: Role): Permission[] {
  return PERMISSIONS.filter((p) => role.permissions.has(p))
}

/** How a caller proved who they are: Krill's three `auth_type`s, and svcd's scoped API tokens. */
export type AuthType = 'admin-token' | 'config-file' | 'openid-connect'
export type ActorProvider = AuthType | 'api-token'

/** Who made a request, once authenticated. */
export interface Actor {
  /** The user id (`admin-token` for the admin token; the user's id for a user; the owner's id for an API token). */
  readonly id: string
  /** How the caller authenticated. */
  readonly provider: ActorProvider
  readonly role: Role
  /** With an API token: the token's name (its owner is `id`). */
  readonly token?: string
}

/** GET /api/v1/whoami (beyond Krill): who the caller is and what their role allows. */
export interface WhoAmIJson {
  id: string
  provider: ActorProvider
  role: string
  permissions: Permission[]
  /** The CAs the role is limited to, or null for all. */
  cas: string[] | null
  token: string | null
}

export function whoAmIJson(actor: Actor): WhoAmIJson {
  return {
    id: actor.id,
    provider: actor.provider,
    role: actor.role.name,
    permissions: permissionList(actor.role),
    cas: actor.role.cas ? [...actor.role.cas] : null,
    token: actor.token ?? null,
  }
}
