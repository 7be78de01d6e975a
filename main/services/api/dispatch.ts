// One place where a call from any transport is checked and run: method allowlist, argument
// schema, and errors reduced to a code and a sentence.
import { ApiError, areas, AREA_NAMES, contract, type ApiErrorShape, type AreaName, type ArgsOf, type EventSink, type MethodName, type MethodOf, type ParsedArgsOf, type ResultOf } from '../../../shared/api/contract';

export type Handler<M extends MethodName> = (args: ParsedArgsOf<M>) => Promise<ResultOf<M>> | ResultOf<M>;
/** One area's handlers: exactly its methods, so a missing (or unknown) one does not compile. */
export type AreaHandlers<A extends AreaName> = { [M in MethodOf<A>]: Handler<M> };
/** Every area's handlers, one object each. */
export type AreaTable = { [A in AreaName]: AreaHandlers<A> };
/** The full table: every method of the contract. */
export type Handlers = { [M in MethodName]: Handler<M> };
export type { EventSink };

/** The one place the full table is put together: each method from the area the contract files it under. */
export function handlerTable(table: AreaTable): Handlers {
  const out: Record<string, unknown> = {};
  for (const area of AREA_NAMES) {
    const own = table[area] as Record<string, unknown>;
    for (const m of Object.keys(areas[area])) {
      // Typed away already; this guards a table cast from elsewhere.
      if (typeof own?.[m] !== 'function') throw new Error(`the ${area} area has no handler for ${m}`);
      out[m] = own[m];
    }
  }
  return out as Handlers;
}

export type CallOutcome = { ok: true; result: unknown } | { ok: false; error: ApiErrorShape };

export function isMethodName(value: unknown): value is MethodName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(contract, value);
}

export async function dispatch(handlers: Handlers, method: unknown, rawArgs: unknown): Promise<CallOutcome> {
  if (!isMethodName(method)) {
    // Never String() a caller's object: its toString may be anything (or throw).
    const shown = typeof method === 'string' ? JSON.stringify(method).slice(0, 80) : `(a ${method === null ? 'null' : typeof method}, not a method name)`;
    return { ok: false, error: { code: 'bad-method', message: `unknown method ${shown}` } };
  }
  const parsed = contract[method].args.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.join('.') : 'arguments';
    // "expected string, received undefined" is a missing field: say so.
    const missing = issue.code === 'invalid_type' && / received undefined$/.test(issue.message);
    const message = missing ? `required (${(issue as { expected?: string }).expected ?? 'a value'})` : issue.message;
    return { ok: false, error: { code: 'bad-args', message: `${method}: ${where}: ${message}` } };
  }
  const handler = handlers[method] as (args: unknown) => unknown;
  try {
    return { ok: true, result: (await handler(parsed.data)) ?? null };
  } catch (err) {
    return { ok: false, error: toErrorShape(err) };
  }
}

export function toErrorShape(err: unknown): ApiErrorShape {
  if (err instanceof ApiError) return { code: err.code, message: err.message };
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'ENOENT') return { code: 'not-found', message: `no such file: ${e.path ?? ''}`.trim() };
  if (e?.code === 'EACCES' || e?.code === 'EPERM') return { code: 'refused', message: `permission denied: ${e.path ?? ''}`.trim() };
  return { code: 'failed', message: err instanceof Error ? err.message : String(err) };
}

/** Typed helper for tests and in-process callers. */
export async function callDirect<M extends MethodName>(handlers: Handlers, method: M, args: ArgsOf<M>): Promise<ResultOf<M>> {
  const out = await dispatch(handlers, method, args);
  if (!out.ok) throw new ApiError(out.error.code, out.error.message);
  return out.result as ResultOf<M>;
}
