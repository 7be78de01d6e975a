/* TCP forwarding on the loop thread: accept, choose (from the published table, or one call to
 * JavaScript), connect with redispatch, relay both ways with half-close, idle and connect
 * timeouts. Reads start at accept and with the connect; writes try uv_try_write first. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "loop.h"
#include "sock.h"
#ifdef __linux__
#include <sys/socket.h>
#endif

enum phase { P_CHOOSING, P_CONNECTING, P_RELAYING, P_CLOSED };

static const double BUCKETS_MS[NBUCKETS - 1] = {0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};
#define KEEP_FREE 1024

typedef struct sconn {
  sock_t h;
  session_t *s;
} sconn_t;

typedef struct dir {
  char *buf;
  size_t cap;
  int eof, shut, writing;
} dir_t;

struct session {
  sock_t client;
  sconn_t *server;
  engine_t *e;
  listener_t *l;
  pool_t *pool;
  member_t *m;
  uint32_t slot, gen;
  int phase;
  int closes;
  dir_t up, down; /* up: client to server */
  char *pre;      /* client bytes the server has not answered yet: replayed on a reset */
  size_t pre_len, pre_cap;
  int replay;
  int client_stopped;
  int by_js;            /* the server was JavaScript's choice: its end is reported */
  int idle;
  int64_t pending_in, pending_chunks; /* read before any server was chosen */
  uint64_t last_active, deadline, connect_start;
  uint32_t tried[MAX_TRIED];
  int ntried;
  char peer[64];
  int peer_port, have_peer;
  session_t *prev, *next;
};

static void on_client_read(sock_t *k, ssize_t n);
static void on_server_read(sock_t *k, ssize_t n);
static void dispatch(session_t *s);
static void finish(session_t *s, int status, int server_side, int reset);

/* ---- sessions: a free list, slots for JavaScript's answers, a live list for the sweep ---- */

/* ---- buffers: a small one from the pool while bytes are in it, a big one kept for bulk ---- */

#define KEEP_BUFS 2048

static void buf_give(engine_t *e, dir_t *d) {
  if (!d->buf) return;
  if (d->cap == SMALL_BUF && e->nbufs < KEEP_BUFS) {
    if (e->nbufs == e->capbufs) {
      e->capbufs = e->capbufs ? e->capbufs * 2 : 64;
      e->bufs = realloc(e->bufs, e->capbufs * sizeof *e->bufs);
    }
    e->bufs[e->nbufs++] = d->buf;
  } else free(d->buf);
  d->buf = NULL;
  d->cap = SMALL_BUF;
}

static char *buf_take(engine_t *e, dir_t *d) {
  if (!d->buf) {
    d->buf = e->nbufs ? e->bufs[--e->nbufs] : malloc(SMALL_BUF);
    d->cap = SMALL_BUF;
  }
  return d->buf;
}

/* An idle connection holds no buffer (as HAProxy's do): given back once its bytes are sent on. */
static void buf_idle(engine_t *e, dir_t *d) {
  if (!d->writing && d->cap == SMALL_BUF) buf_give(e, d);
}

static session_t *session_get(engine_t *e) {
  session_t *s = e->free;
  if (s) {
    e->free = s->next;
    e->nfree -= 1;
  } else {
    s = calloc(1, sizeof *s);
    if (e->nfree_slots > 0) s->slot = e->free_slots[--e->nfree_slots];
    else {
      s->slot = e->nslots++;
      e->slots = realloc(e->slots, e->nslots * sizeof *e->slots);
      e->free_slots = realloc(e->free_slots, e->nslots * sizeof *e->free_slots);
    }
    e->slots[s->slot] = s;
  }
  s->e = e;
  s->gen += 1;
  s->server = NULL;
  s->m = NULL;
  s->phase = P_CONNECTING;
  s->closes = 0;
  s->up.eof = s->up.shut = s->up.writing = 0;
  s->down.eof = s->down.shut = s->down.writing = 0;
  s->pre_len = 0;
  s->replay = 1;
  s->client_stopped = 0;
  s->by_js = 0;
  s->idle = 0;
  s->pending_in = s->pending_chunks = 0;
  s->ntried = 0;
  s->have_peer = 0;
  s->prev = NULL;
  s->next = e->live;
  if (e->live) e->live->prev = s;
  e->live = s;
  BUMP(e->live_sessions, 1);
  return s;
}

static void session_put(session_t *s) {
  engine_t *e = s->e;
  if (s->prev) s->prev->next = s->next;
  else e->live = s->next;
  if (s->next) s->next->prev = s->prev;
  BUMP(e->live_sessions, -1);
  listener_t *l = s->l;
  l->refs -= 1;
  listener_release(e, l);
  buf_give(e, &s->up);
  buf_give(e, &s->down);
  if (e->nfree >= KEEP_FREE) {
    e->slots[s->slot] = NULL;
    e->free_slots[e->nfree_slots++] = s->slot;
    free(s->pre);
    free(s);
    e->freed += 1;
    return;
  }
  if (s->pre_cap > REPLAY_LIMIT) {
    free(s->pre);
    s->pre = NULL;
    s->pre_cap = 0;
  }
  s->next = e->free;
  e->free = s;
  e->nfree += 1;
}

static void on_closed(sock_t *k) {
  session_t *s = k->data;
  if (--s->closes == 0 && s->phase == P_CLOSED) session_put(s);
}

static void on_server_closed(sock_t *k) {
  sconn_t *c = k->data;
  session_t *s = c->s;
  free(c);
  /* A server given up while the client stays (redispatch) does not end the session. */
  if (--s->closes == 0 && s->phase == P_CLOSED) session_put(s);
}

static void close_server(session_t *s, int reset) {
  sconn_t *c = s->server;
  if (!c) return;
  s->server = NULL;
  s->closes += 1;
  sock_close(&c->h, reset, on_server_closed);
}

static void close_client(session_t *s, int reset) {
  s->closes += 1;
  sock_close(&s->client, reset, on_closed);
}

static const char *client_name(session_t *s) {
  if (!s->have_peer) {
    struct sockaddr_storage ss;
    s->have_peer = 1;
    s->peer[0] = 0;
    s->peer_port = 0;
    if (sock_peer(&s->client, &ss) == 0) peer_name(&ss, s->peer, sizeof s->peer, &s->peer_port);
  }
  return s->peer[0] ? s->peer : NULL;
}

/* ---- buffers ---- */

static void alloc_up(sock_t *k, uv_buf_t *b) {
  session_t *s = k->data;
  buf_take(s->e, &s->up);
  size_t n = s->up.cap;
  /* Before a server is connected, what is read is kept whole for it: never past the replay limit. */
  if ((s->phase == P_CHOOSING || s->phase == P_CONNECTING) && REPLAY_LIMIT - s->pre_len < n) n = REPLAY_LIMIT - s->pre_len;
  *b = uv_buf_init(s->up.buf, (unsigned)n);
}

static void alloc_down(sock_t *k, uv_buf_t *b) {
  sconn_t *c = k->data;
  buf_take(c->s->e, &c->s->down);
  *b = uv_buf_init(c->s->down.buf, (unsigned)c->s->down.cap);
}

/* A full small read is bulk traffic: read in big chunks from now on (the buffer is free); a
 * shorter one leaves the small buffer to the pool. */
static void maybe_grow(engine_t *e, dir_t *d, size_t n) {
  if (n < d->cap || d->cap >= BIG_BUF) return buf_idle(e, d);
  char *big = malloc(BIG_BUF);
  if (!big) return buf_idle(e, d);
  buf_give(e, d);
  d->buf = big;
  d->cap = BIG_BUF;
}

static void keep(session_t *s, const char *data, size_t n) {
  if (s->pre_len + n > s->pre_cap) {
    size_t cap = s->pre_cap ? s->pre_cap : 1024; /* most first requests fit; held ones cost less */
    while (cap < s->pre_len + n) cap *= 2;
    s->pre = realloc(s->pre, cap);
    s->pre_cap = cap;
  }
  memcpy(s->pre + s->pre_len, data, n);
  s->pre_len += n;
}

/* ---- relay ---- */

static void on_write(sock_t *k, int status);

/* Writes what `from` read to `to`: at once when the socket takes it, else queued with reading stopped. */
static int relay(dir_t *d, sock_t *from, sock_t *to, const char *data, size_t n) {
  int r = sock_try_write(to, from, data, n);
  if (r == (int)n) return 0;
  if (r == UV_EAGAIN) r = 0;
  if (r < 0) return r;
  int err = sock_write(to, data + r, n - (size_t)r, on_write);
  if (err) return err;
  d->writing = 1;
  if (from) sock_read_stop(from);
  return 0;
}

/* `current`: the write went to the session's server of now, not to one given up. */
static void wrote(session_t *s, dir_t *d, int current, int status) {
  if (!current) return;
  d->writing = 0;
  buf_idle(s->e, d);
  if (s->phase != P_RELAYING) return;
  int up = d == &s->up;
  if (status < 0) return finish(s, status, up, 1);
  if (d->eof) return;
  if (up) sock_read_start(&s->client, alloc_up, on_client_read);
  else sock_read_start(&s->server->h, alloc_down, on_server_read);
}

/* A socket's session and the direction that writes to it; `current`: not a server given up. */
static session_t *owner(sock_t *k, dir_t **to, int *current) {
  if (k->server) {
    sconn_t *c = k->data;
    *to = &c->s->up;
    *current = c->s->server == c;
    return c->s;
  }
  session_t *s = k->data;
  *to = &s->down;
  *current = 1;
  return s;
}

static void on_write(sock_t *k, int status) {
  dir_t *d;
  int current;
  session_t *s = owner(k, &d, &current);
  wrote(s, d, current, status);
}

static void shut_done(session_t *s, dir_t *d, int current, int status) {
  if (s->phase != P_RELAYING || !current) return;
  int up = d == &s->up;
  /* A failed shutdown means the peer is gone (reset); ENOTCONN is how the socket says it. */
  if (status < 0) return finish(s, status == UV_ENOTCONN ? UV_ECONNRESET : status, up, 1);
  d->shut = 1;
  if (s->up.shut && s->down.shut) finish(s, 0, 0, 0);
}

static void on_shut(sock_t *k, int status) {
  dir_t *d;
  int current;
  session_t *s = owner(k, &d, &current);
  shut_done(s, d, current, status);
}

static void shut(session_t *s, dir_t *d, sock_t *to) {
  int err = sock_shutdown(to, on_shut);
  if (err) finish(s, err == UV_ENOTCONN ? UV_ECONNRESET : err, d == &s->up, 1);
}

/* One side ended: both ended with nothing in flight = close both (the close sends the FINs). */
static void ended(session_t *s, dir_t *d, sock_t *from, sock_t *to) {
  d->eof = 1;
  sock_read_stop(from);
  dir_t *o = d == &s->up ? &s->down : &s->up;
  if (o->eof && !d->writing && !o->writing) return finish(s, 0, 0, 0);
  shut(s, d, to);
}

static void on_client_read(sock_t *h, ssize_t n) {
  session_t *s = h->data;
  if (s->phase == P_CHOOSING || s->phase == P_CONNECTING) {
    /* Before a server is connected: kept for it (bounded; reading stops past the limit). */
    if (n > 0) {
      keep(s, s->up.buf, (size_t)n);
      buf_idle(s->e, &s->up);
      s->last_active = uv_now(&s->e->loop);
      s->pending_in += n;
      s->pending_chunks += 1;
      if (s->pre_len >= REPLAY_LIMIT) {
        sock_read_stop(h);
        s->client_stopped = 1;
      }
    } else if (n == UV_EOF) {
      s->up.eof = 1;
      sock_read_stop(h);
    } else if (n == UV_ENOBUFS) {
      sock_read_stop(h); /* the kept bytes reached the limit: wait for the server */
      s->client_stopped = 1;
    } else finish(s, (int)n, 0, 1);
    return;
  }
  if (s->phase != P_RELAYING) return;
  if (n > 0) {
    member_t *m = s->m;
    BUMP(m->bytes_in, n);
    BUMP(m->chunks_in, 1);
    s->last_active = uv_now(&s->e->loop);
    if (s->replay) {
      if (s->pre_len + (size_t)n > REPLAY_LIMIT) s->replay = 0;
      else keep(s, s->up.buf, (size_t)n);
    }
    int err = relay(&s->up, h, &s->server->h, s->up.buf, (size_t)n);
    if (err) return finish(s, err, 1, 1);
    if (!s->up.writing) maybe_grow(s->e, &s->up, (size_t)n);
  } else if (n == UV_EOF) {
    ended(s, &s->up, h, &s->server->h);
  } else finish(s, (int)n, 0, 1);
}

static void on_server_read(sock_t *h, ssize_t n) {
  sconn_t *c = h->data;
  session_t *s = c->s;
  if (s->server != c || s->phase != P_RELAYING) return;
  if (n > 0) {
    s->replay = 0;
    BUMP(s->m->bytes_out, n);
    s->last_active = uv_now(&s->e->loop);
    int err = relay(&s->down, h, &s->client, s->down.buf, (size_t)n);
    if (err) return finish(s, err, 0, 1);
    if (!s->down.writing) maybe_grow(s->e, &s->down, (size_t)n);
  } else if (n == UV_EOF) {
    ended(s, &s->down, h, &s->client);
  } else finish(s, (int)n, 1, 1);
}

/* ---- choice, connect, redispatch ---- */

/* An event about this connection; slot and gen let JavaScript match it to its own choice. */
static void session_event(session_t *s, int type, member_t *m, const char *reason) {
  event_t *ev = calloc(1, sizeof *ev);
  ev->type = type;
  ev->pool = s->pool->id;
  ev->member = m ? m->id : 0;
  ev->slot = s->slot;
  ev->gen = s->gen;
  ev->js = s->by_js;
  ev->secondary = s->l->secondary;
  ev->lport = s->l->port;
  const char *client = client_name(s);
  if (client) snprintf(ev->client, sizeof ev->client, "%s", client);
  ev->client_port = s->peer_port;
  if (reason) snprintf(ev->reason, sizeof ev->reason, "%s", reason);
  engine_emit(s->e, ev);
}

static void refuse(session_t *s, const char *reason) {
  s->phase = P_CLOSED;
  BUMP(s->pool->refused, 1);
  const char *client = client_name(s);
  engine_event(s->e, EV_REFUSED, s->pool, NULL, NULL, client, s->peer_port, reason);
  close_client(s, 1);
}

static void on_connect(sock_t *k, int status);
static void connect_failed(session_t *s, const char *reason);

/* What a server may be sent the moment it is connected: what the client sent meanwhile. */
static void first_bytes(sock_t *k, uv_buf_t *b) {
  sconn_t *c = k->data;
  session_t *s = c->s;
  int ok = s->server == c && s->phase == P_CONNECTING;
  *b = uv_buf_init(s->pre, ok ? (unsigned)s->pre_len : 0);
}

static void start_connect(session_t *s, member_t *m, const struct sockaddr_storage *addr, uint32_t connect_ms) {
  engine_t *e = s->e;
  BUMP(m->active, 1);
  s->m = m;
  s->phase = P_CONNECTING;
  s->deadline = uv_now(&e->loop) + connect_ms;
  s->connect_start = uv_hrtime();
  sconn_t *c = malloc(sizeof *c);
  c->s = s;
  sock_init(e, &c->h, c);
  c->h.server = 1;
  s->server = c;
  int err = sock_connect(&c->h, (const struct sockaddr *)addr, on_connect);
  if (err == 0) {
    /* Reading starts with the connect: the socket joins epoll once for both. */
    sock_read_start(&c->h, alloc_down, on_server_read);
    sock_speculate(&c->h, first_bytes);
    return;
  }
  /* Refused at once (no route...): a failed connect like any other. */
  char reason[96];
  errname(reason, sizeof reason, "connect ", err);
  connect_failed(s, reason);
}

/* Report the server, try another; the client sees nothing unless every server failed. */
static void connect_failed(session_t *s, const char *reason) {
  member_t *m = s->m;
  BUMP(m->errors, 1);
  BUMP(m->active, -1);
  BUMP(s->pool->redispatched, 1);
  close_server(s, 0);
  if (s->ntried < MAX_TRIED) s->tried[s->ntried++] = m->id;
  s->m = NULL;
  if (s->by_js) {
    /* JavaScript ends its count before it is asked again. */
    session_event(s, EV_REDISPATCH, m, reason);
    s->by_js = 0;
    s->phase = P_CONNECTING;
    return dispatch(s);
  }
  char why[96];
  snprintf(why, sizeof why, "%s", reason);
  client_name(s); /* before a refusal closes the client */
  s->phase = P_CONNECTING;
  uint32_t gen = s->gen;
  dispatch(s);
  /* Said after the new choice so the event names where the client went. */
  if (s->gen != gen) return;
  event_t *ev = calloc(1, sizeof *ev);
  ev->type = EV_REDISPATCH;
  ev->pool = s->pool->id;
  ev->member = m->id;
  ev->to = s->m && s->phase != P_CLOSED ? s->m->id : 0;
  ev->secondary = s->l->secondary;
  ev->lport = s->l->port;
  if (s->have_peer && s->peer[0]) snprintf(ev->client, sizeof ev->client, "%s", s->peer);
  ev->client_port = s->peer_port;
  snprintf(ev->reason, sizeof ev->reason, "%s", why);
  engine_emit(s->e, ev);
}

static void on_connect(sock_t *k, int status) {
  sconn_t *c = k->data;
  session_t *s = c->s;
  if (s->server != c || s->phase != P_CONNECTING) return; /* given up (timeout, client gone) */
  if (status < 0) {
    char reason[96];
    errname(reason, sizeof reason, "connect ", status);
    return connect_failed(s, reason);
  }
  member_t *m = s->m;
  double ms = (double)(uv_hrtime() - s->connect_start) / 1e6;
  int i = 0;
  while (i < NBUCKETS - 1 && ms > BUCKETS_MS[i]) i++;
  BUMP(m->connect_ms[i], 1);
  BUMP(m->total, 1);
  BUMP(m->bytes_in, s->pending_in);
  BUMP(m->chunks_in, s->pending_chunks);
  s->pending_in = s->pending_chunks = 0;
  s->phase = P_RELAYING;
  s->last_active = uv_now(&s->e->loop);
  size_t sent = sock_take_early(&c->h);
  if (s->pre_len > REPLAY_LIMIT) s->replay = 0;
  if (s->pre_len > sent) {
    int err = relay(&s->up, s->client_stopped ? NULL : &s->client, &c->h, s->pre + sent, s->pre_len - sent);
    if (err) return finish(s, err, 1, 1);
    if (s->up.writing) s->client_stopped = 0; /* on_write restarts reading */
  }
  if (s->up.eof) {
    shut(s, &s->up, &c->h);
    return;
  }
  if (s->client_stopped && !s->up.writing) {
    s->client_stopped = 0;
    sock_read_start(&s->client, alloc_up, on_client_read);
  }
}

/* Called with the engine lock held (the table entry is read under it); connects after unlocking. */
static void connect_to(session_t *s, entry_t *c) {
  member_t *m = c->m;
  struct sockaddr_storage addr = s->l->secondary ? c->addr2 : c->addr;
  int port = c->port ? c->port : s->l->port;
  uint32_t connect_ms = c->connect_ms;
  uv_mutex_unlock(&s->e->mu);
  if (addr.ss_family == AF_INET6) ((struct sockaddr_in6 *)&addr)->sin6_port = htons(port);
  else ((struct sockaddr_in *)&addr)->sin_port = htons(port);
  start_connect(s, m, &addr, connect_ms);
}

static void dispatch(session_t *s) {
  engine_t *e = s->e;
  uv_mutex_lock(&e->mu);
  pool_t *p = s->pool;
  if (p->algo == A_JS) {
    uv_mutex_unlock(&e->mu);
    s->phase = P_CHOOSING;
    event_t *ev = calloc(1, sizeof *ev);
    ev->type = EV_CHOOSE;
    ev->pool = p->id;
    ev->slot = s->slot;
    ev->gen = s->gen;
    ev->secondary = s->l->secondary;
    ev->lport = s->l->port;
    const char *client = client_name(s);
    if (client) snprintf(ev->client, sizeof ev->client, "%s", client);
    ev->client_port = s->peer_port;
    memcpy(ev->tried, s->tried, sizeof s->tried);
    ev->ntried = s->ntried;
    engine_emit(e, ev);
    return;
  }
  uint32_t h = 0;
  if (p->algo == A_HASH) {
    const char *client = client_name(s);
    h = hash_client(client ? client : "", s->peer_port);
  }
  entry_t *c = choose(p, s->l->secondary, s->tried, s->ntried, h);
  if (!c) {
    uv_mutex_unlock(&e->mu);
    return refuse(s, s->ntried ? "every server failed to connect" : "no available or degraded server");
  }
  connect_to(s, c);
}

/* JavaScript's answer for a pool it decides (persistence, least load, peer groups). */
void tcp_chosen(engine_t *e, cmd_t *cmd) {
  if (cmd->slot >= e->nslots) return;
  session_t *s = e->slots[cmd->slot];
  if (!s || s->gen != cmd->gen || s->phase != P_CHOOSING) {
    /* The client left meanwhile: JavaScript counted it on its server, so it ends there. */
    if (cmd->member == 0) return;
    event_t *ev = calloc(1, sizeof *ev);
    ev->type = EV_END;
    ev->member = cmd->member;
    ev->slot = cmd->slot;
    ev->gen = cmd->gen;
    ev->js = 1;
    engine_emit(e, ev);
    return;
  }
  if (cmd->member == 0) return refuse(s, cmd->reason);
  uv_mutex_lock(&e->mu);
  pool_t *p = s->pool;
  entry_t *c = NULL;
  for (int i = 0; i < p->n; i++)
    if (p->entries[i].m->id == cmd->member) c = &p->entries[i];
  if (!c) {
    uv_mutex_unlock(&e->mu);
    /* Gone from the table meanwhile (a reload): JavaScript counted it there, so it ends there. */
    s->m = engine_member(e, cmd->member);
    s->by_js = 1;
    session_event(s, EV_END, s->m, NULL);
    s->m = NULL;
    return refuse(s, "no available or degraded server");
  }
  s->by_js = 1;
  connect_to(s, c);
}

/* A connection accepted on either loop: count it, start reading, choose its server. */
static void accepted(engine_t *e, session_t *s) {
  uv_mutex_lock(&e->mu);
  s->pool = s->l->pool;
  uv_mutex_unlock(&e->mu);
  BUMP(s->pool->accepted, 1);
  /* Reading starts at accept: what the client sends first waits for the server in `pre`. */
  sock_read_start(&s->client, alloc_up, on_client_read);
  s->last_active = uv_now(&e->loop);
  dispatch(s);
}

void tcp_on_connection(uv_stream_t *server, int status) {
  listener_t *l = server->data;
  engine_t *e = server->loop->data;
  if (status < 0) return;
  session_t *s = session_get(e);
  sock_init(e, &s->client, s);
  s->l = l;
  l->refs += 1;
  if (sock_accept(&s->client, server) != 0) {
    s->phase = P_CLOSED;
    close_client(s, 0);
    return;
  }
  accepted(e, s);
}

#ifdef __linux__
/* The epoll loop's listener: a bounded batch per event (it is level-triggered). Out of
 * descriptors, it rests until the next sweep instead of waking the loop for nothing. */
void tcp_listener_ready(engine_t *e, void *listener, uint32_t events) {
  listener_t *l = listener;
  (void)events;
  for (int i = 0; i < 64 && !l->closed; i++) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    int fd = accept4(l->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if ((errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) && ep_unwatch(e, l->fd) == 0) l->paused = 1;
      return;
    }
    session_t *s = session_get(e);
    sock_init(e, &s->client, s);
    s->l = l;
    l->refs += 1;
    if (sock_adopt(&s->client, fd, &ss) != 0) {
      s->phase = P_CLOSED;
      close_client(s, 1);
      continue;
    }
    accepted(e, s);
    /* Its request read and sent on before the next accept, as soon after the connect as can be:
     * the server, woken by the handshake, then finds the bytes there instead of waking twice. */
    sock_run_all(e);
  }
}
#endif

/* ---- ends ---- */

/* The server failed before answering: the client has seen nothing, so it goes to another. */
static void rescue(session_t *s, int status) {
  char reason[96];
  errname(reason, sizeof reason, "reset before answering: ", status);
  s->up.writing = 0;
  s->up.shut = 0;
  /* Until the next server is connected, reads are kept for it, within the replay limit. */
  sock_read_stop(&s->client);
  s->client_stopped = 0;
  if (!s->up.eof && s->pre_len < REPLAY_LIMIT) sock_read_start(&s->client, alloc_up, on_client_read);
  else if (!s->up.eof) s->client_stopped = 1;
  connect_failed(s, reason);
}

static void finish(session_t *s, int status, int server_side, int reset) {
  if (s->phase == P_CLOSED) return;
  if (status < 0 && server_side && s->replay && s->m && s->phase == P_RELAYING && s->down.writing == 0) {
    s->phase = P_CONNECTING;
    return rescue(s, status);
  }
  s->phase = P_CLOSED;
  member_t *m = s->m;
  if (m) {
    BUMP(m->active, -1);
    if (status < 0) BUMP(m->errors, 1);
    if (s->by_js) session_event(s, EV_END, m, NULL);
  }
  close_server(s, reset);
  close_client(s, reset);
}

void tcp_sweep(engine_t *e, uint64_t now) {
  uv_mutex_lock(&e->mu);
  for (listener_t *l = e->listeners; l; l = l->next)
    if (l->paused && !l->closed && ep_watch(e, l->fd, l, tcp_listener_ready) == 0) l->paused = 0;
  for (session_t *s = e->live; s; s = s->next)
    s->idle = s->phase == P_RELAYING && now - s->last_active >= s->l->pool->idle_ms;
  uv_mutex_unlock(&e->mu);
  session_t *next;
  for (session_t *s = e->live; s; s = next) {
    next = s->next;
    if (s->phase == P_RELAYING && s->idle) finish(s, 0, 0, 0);
    else if (s->phase == P_CONNECTING && s->server && now >= s->deadline) {
      connect_failed(s, "connect timed out");
    }
  }
}

void tcp_stop_all(engine_t *e) {
  session_t *next;
  for (session_t *s = e->live; s; s = next) {
    next = s->next;
    finish(s, 0, 0, 0);
  }
}

void tcp_free_all(engine_t *e) {
  while (e->free) {
    session_t *s = e->free;
    e->free = s->next;
    free(s->pre);
    free(s);
  }
  while (e->nbufs) free(e->bufs[--e->nbufs]);
  free(e->bufs);
  free(e->slots);
  free(e->free_slots);
}
