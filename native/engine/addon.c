/* The N-API face of the native data path (ABI-stable: one build serves Node and Electron).
 * JavaScript publishes listeners and selection tables, answers the choices it keeps, reads
 * counters, and receives events in batches through one thread-safe function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <node_api.h>
#include "engine.h"

#define CHECK(call)                                                  \
  do {                                                               \
    if ((call) != napi_ok) {                                         \
      napi_throw_error(env, NULL, "lbdesk native engine: " #call);   \
      return NULL;                                                   \
    }                                                                \
  } while (0)

/* Data threads: one engine (its own loop thread) each. Their listeners share each port
 * (SO_REUSEPORT: the kernel spreads new connections and UDP flows over them), every call goes
 * to all of them, counters are summed, and a connection waiting on JavaScript is named to it as
 * slot * MAX_LOOPS + its engine. */
#define MAX_LOOPS 16

typedef struct {
  engine_t *e[MAX_LOOPS];
  int n;
  napi_threadsafe_function tsfn;
} state_t;

static state_t *get_state(napi_env env) {
  state_t *st = NULL;
  napi_get_instance_data(env, (void **)&st);
  return st;
}

static void notify(void *arg) {
  state_t *st = arg;
  napi_call_threadsafe_function(st->tsfn, NULL, napi_tsfn_nonblocking);
}

static const char *TYPES[] = {"refused", "redispatch", "choose", "end", "error"};

static void set_u32(napi_env env, napi_value o, const char *k, uint32_t v) {
  napi_value x;
  napi_create_uint32(env, v, &x);
  napi_set_named_property(env, o, k, x);
}

static void set_str(napi_env env, napi_value o, const char *k, const char *v) {
  napi_value x;
  napi_create_string_utf8(env, v, NAPI_AUTO_LENGTH, &x);
  napi_set_named_property(env, o, k, x);
}

/* On JavaScript's thread: the queued events as one array of plain objects. */
static void call_js(napi_env env, napi_value fn, void *ctx, void *data) {
  state_t *st = ctx;
  (void)data;
  if (!env || !st->n) return;
  napi_value arr;
  napi_create_array(env, &arr);
  uint32_t i = 0;
  for (int loop = 0; loop < st->n; loop++) {
  event_t *ev = engine_take_events(st->e[loop]);
  while (ev) {
    napi_value o;
    napi_create_object(env, &o);
    set_str(env, o, "type", TYPES[ev->type]);
    set_u32(env, o, "pool", ev->pool);
    set_u32(env, o, "member", ev->member);
    set_u32(env, o, "slot", ev->slot * MAX_LOOPS + (uint32_t)loop);
    set_u32(env, o, "gen", ev->gen);
    set_u32(env, o, "js", (uint32_t)ev->js);
    set_u32(env, o, "udp", (uint32_t)ev->udp);
    set_u32(env, o, "to", ev->to);
    set_u32(env, o, "secondary", (uint32_t)ev->secondary);
    set_u32(env, o, "lport", (uint32_t)ev->lport);
    if (ev->client[0]) {
      set_str(env, o, "client", ev->client);
      set_u32(env, o, "clientPort", (uint32_t)ev->client_port);
    }
    if (ev->reason[0]) set_str(env, o, "reason", ev->reason);
    if (ev->type == EV_CHOOSE) {
      napi_value tried;
      napi_create_array_with_length(env, (size_t)ev->ntried, &tried);
      for (int k = 0; k < ev->ntried; k++) {
        napi_value x;
        napi_create_uint32(env, ev->tried[k], &x);
        napi_set_element(env, tried, (uint32_t)k, x);
      }
      napi_set_named_property(env, o, "tried", tried);
    }
    napi_set_element(env, arr, i++, o);
    event_t *next = ev->next;
    free(ev);
    ev = next;
  }
  }
  if (i == 0) return;
  napi_value undef;
  napi_get_undefined(env, &undef);
  napi_call_function(env, undef, fn, 1, &arr, NULL);
}

static void shutdown_engine(state_t *st) {
  /* Each free joins its loop thread: no notify after the last. */
  for (int i = 0; i < st->n; i++) engine_free(st->e[i]);
  st->n = 0;
}

static void cleanup(void *arg) {
  state_t *st = arg;
  shutdown_engine(st);
}

static void finalize_state(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  /* Not freed: the env's cleanup hook may still run after this and reads it. */
  shutdown_engine(data);
}

static napi_value args(napi_env env, napi_callback_info info, size_t want, napi_value *argv) {
  size_t argc = want;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < want) {
    napi_throw_type_error(env, NULL, "lbdesk native engine: missing arguments");
    return NULL;
  }
  return argv[0];
}

static uint32_t u32(napi_env env, napi_value v) {
  uint32_t x = 0;
  napi_get_value_uint32(env, v, &x);
  return x;
}

static int32_t i32(napi_env env, napi_value v) {
  int32_t x = 0;
  napi_get_value_int32(env, v, &x);
  return x;
}

static double f64(napi_env env, napi_value v) {
  double x = 0;
  napi_get_value_double(env, v, &x);
  return x;
}

static void str(napi_env env, napi_value v, char *out, size_t len) {
  size_t got = 0;
  out[0] = 0;
  napi_get_value_string_utf8(env, v, out, len, &got);
}

static napi_value undefined(napi_env env) {
  napi_value u;
  napi_get_undefined(env, &u);
  return u;
}

static state_t *need(napi_env env) {
  state_t *st = get_state(env);
  if (!st || !st->n) {
    napi_throw_error(env, NULL, "lbdesk native engine: not started");
    return NULL;
  }
  return st;
}

/* start(onEvents, loops = 1): `loops` data threads */
static napi_value js_start(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc = 2;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1) return args(env, info, 1, argv);
  int loops = 1;
  if (argc > 1) {
    napi_valuetype t;
    napi_typeof(env, argv[1], &t);
    if (t == napi_number) napi_get_value_int32(env, argv[1], &loops);
  }
  if (loops < 1 || loops > MAX_LOOPS) {
    napi_throw_range_error(env, NULL, "lbdesk native engine: 1 to 16 data threads");
    return NULL;
  }
  state_t *st = get_state(env);
  if (st && st->n) return undefined(env);
  if (!st) {
    st = calloc(1, sizeof *st);
    CHECK(napi_set_instance_data(env, st, finalize_state, NULL));
    CHECK(napi_add_env_cleanup_hook(env, cleanup, st));
  }
  /* A peer gone mid-write must be an error on that connection, not the end of the process. */
  signal(SIGPIPE, SIG_IGN);
  napi_value name;
  napi_create_string_utf8(env, "lbdesk-engine-events", NAPI_AUTO_LENGTH, &name);
  CHECK(napi_create_threadsafe_function(env, argv[0], NULL, name, 0, 1, NULL, NULL, st, call_js, &st->tsfn));
  CHECK(napi_unref_threadsafe_function(env, st->tsfn));
  for (int i = 0; i < loops; i++) {
    engine_t *e = engine_new();
    if (!e) {
      shutdown_engine(st);
      napi_throw_error(env, NULL, "lbdesk native engine: cannot start its loop");
      return NULL;
    }
    engine_set_notify(e, notify, st);
    st->e[st->n++] = e;
  }
  return undefined(env);
}

/* listen(id, address, port, udp) -> bound port; throws with the errno name */
static napi_value js_listen(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!args(env, info, 4, argv)) return NULL;
  state_t *st = need(env);
  if (!st) return NULL;
  char addr[64], err[64];
  str(env, argv[1], addr, sizeof addr);
  bool udp = false;
  napi_get_value_bool(env, argv[3], &udp);
  int bound = 0, port = i32(env, argv[2]);
  uint32_t id = u32(env, argv[0]);
  for (int i = 0; i < st->n; i++) {
    /* Port 0: the first thread's port for all of them. */
    if (engine_listen(st->e[i], id, addr, i ? bound : port, udp, st->n > 1, &bound, err, sizeof err) != 0) {
      for (int k = 0; k < i; k++) engine_unlisten(st->e[k], id);
      napi_throw_error(env, err, err);
      return NULL;
    }
  }
  napi_value r;
  napi_create_int32(env, bound, &r);
  return r;
}

static napi_value js_unlisten(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!args(env, info, 1, argv)) return NULL;
  state_t *st = need(env);
  if (!st) return NULL;
  for (int i = 0; i < st->n; i++) engine_unlisten(st->e[i], u32(env, argv[0]));
  return undefined(env);
}

/* setListener(id, pool, secondary) */
static napi_value js_set_listener(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  if (!args(env, info, 3, argv)) return NULL;
  state_t *st = need(env);
  if (!st) return NULL;
  bool secondary = false;
  napi_get_value_bool(env, argv[2], &secondary);
  for (int i = 0; i < st->n; i++) engine_set_listener(st->e[i], u32(env, argv[0]), u32(env, argv[1]), secondary);
  return undefined(env);
}

/* Per member, in table order: ROW_FIELDS (engine.h), exported as layout.rowFields. */
#define ROW_NAME(n) n,
static const char *ROW_NAMES[] = {ROW_FIELDS(ROW_NAME)};
#define FIELDS (sizeof ROW_NAMES / sizeof *ROW_NAMES)

/* publish(pool, algo, idleMs, rows): a pool's selection table, swapped in whole. */
static napi_value js_publish(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!args(env, info, 4, argv)) return NULL;
  state_t *st = need(env);
  if (!st) return NULL;
  uint32_t n = 0;
  napi_get_array_length(env, argv[3], &n);
  row_t *rows = calloc(n ? n : 1, sizeof *rows);
  char a[64];
  for (uint32_t i = 0; i < n; i++) {
    napi_value row, f[FIELDS];
    napi_get_element(env, argv[3], i, &row);
    for (uint32_t k = 0; k < FIELDS; k++) napi_get_element(env, row, k, &f[k]);
    row_t *r = &rows[i];
    r->member = u32(env, f[0]);
    r->index = i32(env, f[1]);
    r->weight = i32(env, f[2]);
    r->score = i32(env, f[3]);
    r->eligible = i32(env, f[4]);
    str(env, f[5], a, sizeof a);
    engine_parse_addr(a, 0, &r->addr);
    str(env, f[6], a, sizeof a);
    r->has2 = a[0] != 0 && engine_parse_addr(a, 0, &r->addr2) == 0;
    r->port = i32(env, f[7]);
    r->hash = u32(env, f[8]);
    r->connect_ms = u32(env, f[9]);
  }
  for (int i = 0; i < st->n; i++) engine_publish(st->e[i], u32(env, argv[0]), i32(env, argv[1]), (uint64_t)f64(env, argv[2]), rows, (int)n);
  free(rows);
  return undefined(env);
}

/* chosen(udp, slot, gen, member, reason): JavaScript's answer to a `choose` event (member 0 = refuse). */
static napi_value js_chosen(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  if (!args(env, info, 5, argv)) return NULL;
  state_t *st = need(env);
  if (!st) return NULL;
  char reason[96];
  str(env, argv[4], reason, sizeof reason);
  bool udp = false;
  napi_get_value_bool(env, argv[0], &udp);
  uint32_t slot = u32(env, argv[1]);
  if ((int)(slot % MAX_LOOPS) >= st->n) return undefined(env);
  engine_chosen(st->e[slot % MAX_LOOPS], udp, slot / MAX_LOOPS, u32(env, argv[2]), u32(env, argv[3]), reason);
  return undefined(env);
}

/* members(ids: Uint32Array) -> Float64Array of MEMBER_STATS each; pools(ids) -> POOL_STATS each. */
static napi_value stats(napi_env env, napi_callback_info info, size_t per, void (*read)(engine_t *, const uint32_t *, size_t, double *)) {
  napi_value argv[1];
  if (!args(env, info, 1, argv)) return NULL;
  state_t *st = need(env);
  if (!st) return NULL;
  napi_typedarray_type t;
  size_t n = 0;
  void *data = NULL;
  CHECK(napi_get_typedarray_info(env, argv[0], &t, &n, &data, NULL, NULL));
  double *out;
  napi_value ab, r;
  CHECK(napi_create_arraybuffer(env, n * per * sizeof(double), (void **)&out, &ab));
  /* Every thread's counters, summed. */
  read(st->e[0], data, n, out);
  if (st->n > 1) {
    double *more = malloc(n * per * sizeof(double) + 1);
    for (int i = 1; i < st->n; i++) {
      read(st->e[i], data, n, more);
      for (size_t k = 0; k < n * per; k++) out[k] += more[k];
    }
    free(more);
  }
  CHECK(napi_create_typedarray(env, napi_float64_array, n * per, ab, 0, &r));
  return r;
}

static napi_value js_members(napi_env env, napi_callback_info info) { return stats(env, info, MEMBER_STATS, engine_member_stats); }
static napi_value js_pools(napi_env env, napi_callback_info info) { return stats(env, info, POOL_STATS, engine_pool_stats); }

/* live() -> [connections, flows] open now */
static napi_value js_live(napi_env env, napi_callback_info info) {
  (void)info;
  state_t *st = need(env);
  if (!st) return NULL;
  int64_t s = 0, f = 0;
  for (int i = 0; i < st->n; i++) {
    int64_t s1 = 0, f1 = 0;
    engine_live(st->e[i], &s1, &f1);
    s += s1;
    f += f1;
  }
  napi_value arr, a, b;
  napi_create_array_with_length(env, 2, &arr);
  napi_create_double(env, (double)s, &a);
  napi_create_double(env, (double)f, &b);
  napi_set_element(env, arr, 0, a);
  napi_set_element(env, arr, 1, b);
  return arr;
}

static napi_value js_stop_all(napi_env env, napi_callback_info info) {
  (void)info;
  state_t *st = need(env);
  if (!st) return NULL;
  for (int i = 0; i < st->n; i++) engine_stop_all(st->e[i]);
  return undefined(env);
}

/* close(): ends the loop thread (its connections are closed first). */
/* loop() -> "epoll" (Linux: the engine's own set) or "libuv" (its handles: the portable loop) */
/* threads() -> how many data threads run */
static napi_value js_threads(napi_env env, napi_callback_info info) {
  (void)info;
  state_t *st = need(env);
  if (!st) return NULL;
  napi_value v;
  napi_create_int32(env, st->n, &v);
  return v;
}

static napi_value js_loop(napi_env env, napi_callback_info info) {
  (void)info;
  state_t *st = need(env);
  if (!st) return NULL;
  napi_value v;
  napi_create_string_utf8(env, engine_loop_name(st->e[0]), NAPI_AUTO_LENGTH, &v);
  return v;
}

static napi_value js_close(napi_env env, napi_callback_info info) {
  (void)info;
  state_t *st = get_state(env);
  if (st && st->n) {
    shutdown_engine(st);
    napi_release_threadsafe_function(st->tsfn, napi_tsfn_abort);
  }
  return undefined(env);
}

static napi_value names(napi_env env, const char **list, size_t n) {
  napi_value a, x;
  napi_create_array_with_length(env, n, &a);
  for (size_t i = 0; i < n; i++) {
    napi_create_string_utf8(env, list[i], NAPI_AUTO_LENGTH, &x);
    napi_set_element(env, a, (uint32_t)i, x);
  }
  return a;
}

/* What JavaScript must agree on with this build: algorithm numbers, row and counter layouts. */
static napi_value layout(napi_env env) {
#define ALGO_NAME(id, name) name,
  static const char *algos[] = {ENGINE_ALGORITHMS(ALGO_NAME)};
  static const char *members[] = {MEMBER_FIELDS(ROW_NAME)};
  static const char *pools[] = {POOL_FIELDS(ROW_NAME)};
  napi_value o, algo;
  napi_create_object(env, &o);
  napi_create_object(env, &algo);
  for (int i = 0; i < A_COUNT; i++) set_u32(env, algo, algos[i], (uint32_t)i);
  napi_set_named_property(env, o, "algorithms", algo);
  napi_set_named_property(env, o, "rowFields", names(env, ROW_NAMES, FIELDS));
  napi_set_named_property(env, o, "memberFields", names(env, members, sizeof members / sizeof *members));
  set_u32(env, o, "connectBuckets", NBUCKETS);
  set_u32(env, o, "memberStats", MEMBER_STATS);
  napi_set_named_property(env, o, "poolFields", names(env, pools, sizeof pools / sizeof *pools));
  set_u32(env, o, "poolStats", POOL_STATS);
  return o;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
    {"start", NULL, js_start, NULL, NULL, NULL, napi_default, NULL},
    {"listen", NULL, js_listen, NULL, NULL, NULL, napi_default, NULL},
    {"unlisten", NULL, js_unlisten, NULL, NULL, NULL, napi_default, NULL},
    {"setListener", NULL, js_set_listener, NULL, NULL, NULL, napi_default, NULL},
    {"publish", NULL, js_publish, NULL, NULL, NULL, napi_default, NULL},
    {"chosen", NULL, js_chosen, NULL, NULL, NULL, napi_default, NULL},
    {"members", NULL, js_members, NULL, NULL, NULL, napi_default, NULL},
    {"pools", NULL, js_pools, NULL, NULL, NULL, napi_default, NULL},
    {"live", NULL, js_live, NULL, NULL, NULL, napi_default, NULL},
    {"stopAll", NULL, js_stop_all, NULL, NULL, NULL, napi_default, NULL},
    {"close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL},
    {"loop", NULL, js_loop, NULL, NULL, NULL, napi_default, NULL},
    {"threads", NULL, js_threads, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  napi_value v;
  napi_create_uint32(env, 1, &v);
  napi_set_named_property(env, exports, "abi", v);
  napi_set_named_property(env, exports, "layout", layout(env));
  return exports;
}
