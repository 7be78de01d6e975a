/* UDP forwarding on the loop thread: one flow per client address and port, each with its own
 * socket connected to the chosen server so replies find their way back; idle flows close. A
 * server answering "port unreachable" (ECONNREFUSED) is reported and the flow moves on,
 * resending its last datagram. A client refused lately sending again is the same refusal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define NBUCKETS_UDP 4096

enum fstate { F_CHOOSING, F_OPEN, F_REFUSED, F_CLOSED };

typedef struct fsock {
  uv_udp_t h;
  flow_t *f;
} fsock_t;

struct flow {
  engine_t *e;
  listener_t *l;
  pool_t *pool;
  member_t *m;
  fsock_t *sock;
  struct sockaddr_storage client;
  char addr[64];
  int port;
  uint32_t bucket;
  int state;
  int by_js;
  int counted;   /* its client was refused lately: a refusal now is not counted again */
  int expired;
  int closes;
  uint32_t slot, gen;
  uint64_t last_active, refused_at;
  char *last;
  size_t last_len;
  char *q[UDP_QUEUE];
  size_t qlen[UDP_QUEUE];
  int nq;
  int64_t pending_in, pending_chunks;
  uint32_t tried[MAX_TRIED];
  int ntried;
  flow_t *next_bucket, *prev, *next;
};

static uint32_t bucket_of(const struct sockaddr *a) {
  uint32_t h = 0x811c9dc5u;
  const unsigned char *p;
  size_t n;
  if (a->sa_family == AF_INET) {
    p = (const unsigned char *)&((const struct sockaddr_in *)a)->sin_addr;
    n = 4;
    h ^= ((const struct sockaddr_in *)a)->sin_port;
  } else {
    p = (const unsigned char *)&((const struct sockaddr_in6 *)a)->sin6_addr;
    n = 16;
    h ^= ((const struct sockaddr_in6 *)a)->sin6_port;
  }
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x01000193u;
  return fmix32(h) % NBUCKETS_UDP;
}

static int same_client(const struct sockaddr_storage *x, const struct sockaddr *a) {
  if (x->ss_family != a->sa_family) return 0;
  if (a->sa_family == AF_INET) {
    const struct sockaddr_in *p = (const void *)x, *q = (const void *)a;
    return p->sin_port == q->sin_port && p->sin_addr.s_addr == q->sin_addr.s_addr;
  }
  const struct sockaddr_in6 *p = (const void *)x, *q = (const void *)a;
  return p->sin6_port == q->sin6_port && memcmp(&p->sin6_addr, &q->sin6_addr, 16) == 0;
}

static void flow_event(flow_t *f, int type, member_t *m, member_t *to, const char *reason) {
  event_t *ev = calloc(1, sizeof *ev);
  ev->type = type;
  ev->pool = f->pool->id;
  ev->member = m ? m->id : 0;
  ev->to = to ? to->id : 0;
  ev->slot = f->slot;
  ev->gen = f->gen;
  ev->js = f->by_js;
  ev->udp = 1;
  ev->lport = f->l->port;
  snprintf(ev->client, sizeof ev->client, "%s", f->addr);
  ev->client_port = f->port;
  if (reason) snprintf(ev->reason, sizeof ev->reason, "%s", reason);
  engine_emit(f->e, ev);
}

static void flow_free(flow_t *f) {
  engine_t *e = f->e;
  e->fslots[f->slot] = NULL;
  e->free_fslots[e->nfree_fslots++] = f->slot;
  for (int i = 0; i < f->nq; i++) free(f->q[i]);
  free(f->last);
  listener_t *l = f->l;
  l->refs -= 1;
  listener_release(e, l);
  free(f);
}

static void on_sock_closed(uv_handle_t *h) {
  fsock_t *s = h->data;
  flow_t *f = s->f;
  free(s);
  if (--f->closes == 0 && f->state == F_CLOSED) flow_free(f);
}

/* Closes the flow's server socket and ends its count on the member. */
static void release(flow_t *f) {
  if (f->sock) {
    fsock_t *s = f->sock;
    f->sock = NULL;
    f->closes += 1;
    s->h.data = s;
    uv_close((uv_handle_t *)&s->h, on_sock_closed);
  }
  member_t *m = f->m;
  if (!m) return;
  f->m = NULL;
  BUMP(m->active, -1);
  if (f->by_js) flow_event(f, EV_END, m, NULL, NULL);
}

static void unlink_flow(flow_t *f) {
  engine_t *e = f->e;
  flow_t **pp = &f->l->buckets[f->bucket];
  while (*pp && *pp != f) pp = &(*pp)->next_bucket;
  if (*pp) *pp = f->next_bucket;
  if (f->prev) f->prev->next = f->next;
  else e->flows = f->next;
  if (f->next) f->next->prev = f->prev;
  if (f->state == F_REFUSED) e->refused_flows -= 1;
  else BUMP(e->live_flows, -1);
}

static void drop(flow_t *f) {
  release(f);
  unlink_flow(f);
  f->state = F_CLOSED;
  if (f->closes == 0) flow_free(f);
}

static void refuse(flow_t *f, const char *reason, int counted) {
  if (counted) return;
  BUMP(f->pool->refused, 1);
  flow_event(f, EV_REFUSED, NULL, NULL, reason);
}

static void send_to_server(flow_t *f, const char *data, size_t n) {
  if (f->state == F_CHOOSING) {
    if (f->nq >= UDP_QUEUE) return;
    f->q[f->nq] = malloc(n);
    memcpy(f->q[f->nq], data, n);
    f->qlen[f->nq++] = n;
    return;
  }
  if (f->state != F_OPEN || !f->sock) return;
  uv_buf_t b = uv_buf_init((char *)data, (unsigned)n);
  uv_udp_try_send(&f->sock->h, &b, 1, NULL); /* a full socket drops, as UDP does */
}

static void alloc_buf(uv_handle_t *h, size_t hint, uv_buf_t *b) {
  engine_t *e = h->loop->data;
  (void)hint;
  *b = uv_buf_init(e->udp_buf, sizeof e->udp_buf);
}

static void server_failed(flow_t *f, int status);

static void on_reply(uv_udp_t *h, ssize_t n, const uv_buf_t *b, const struct sockaddr *from, unsigned flags) {
  fsock_t *s = h->data;
  flow_t *f = s->f;
  (void)from;
  (void)flags;
  if (f->sock != s || f->state != F_OPEN) return;
  if (n < 0) return server_failed(f, (int)n);
  if (n == 0 && from == NULL) return;
  f->last_active = uv_now(h->loop);
  BUMP(f->m->bytes_out, n);
  uv_buf_t out = uv_buf_init(b->base, (unsigned)n);
  if (!f->l->closed) uv_udp_try_send(&f->l->udp, &out, 1, (const struct sockaddr *)&f->client);
}

static void server_addr(const entry_t *c, int listener_port, struct sockaddr_storage *addr) {
  *addr = c->addr;
  int port = c->port ? c->port : listener_port;
  if (addr->ss_family == AF_INET6) ((struct sockaddr_in6 *)addr)->sin6_port = htons(port);
  else ((struct sockaddr_in *)addr)->sin_port = htons(port);
}

/* Opens the flow's socket to the server; on failure it is a failed server like ECONNREFUSED. */
static int connect_flow(flow_t *f, member_t *m, const struct sockaddr_storage *addr) {
  engine_t *e = f->e;
  BUMP(m->active, 1);
  BUMP(m->total, 1);
  BUMP(m->bytes_in, f->pending_in);
  BUMP(m->chunks_in, f->pending_chunks);
  f->pending_in = f->pending_chunks = 0;
  f->m = m;
  fsock_t *s = malloc(sizeof *s);
  s->f = f;
  uv_udp_init(&e->loop, &s->h);
  s->h.data = s;
  f->sock = s;
  f->state = F_OPEN;
  int err = uv_udp_connect(&s->h, (const struct sockaddr *)addr);
  if (err == 0) err = uv_udp_recv_start(&s->h, alloc_buf, on_reply);
  if (err) {
    server_failed(f, err); /* reopened elsewhere, or dropped */
    return 1;
  }
  for (int i = 0; i < f->nq; i++) {
    send_to_server(f, f->q[i], f->qlen[i]);
    free(f->q[i]);
  }
  f->nq = 0;
  return 1;
}

/* Chooses a server (or asks JavaScript); 0 when refused. */
static int open_flow(flow_t *f, int counted) {
  engine_t *e = f->e;
  f->counted = counted;
  uv_mutex_lock(&e->mu);
  pool_t *p = f->pool;
  if (p->algo == A_JS) {
    uv_mutex_unlock(&e->mu);
    f->state = F_CHOOSING;
    event_t *ev = calloc(1, sizeof *ev);
    ev->type = EV_CHOOSE;
    ev->udp = 1;
    ev->pool = p->id;
    ev->slot = f->slot;
    ev->gen = f->gen;
    ev->lport = f->l->port;
    snprintf(ev->client, sizeof ev->client, "%s", f->addr);
    ev->client_port = f->port;
    memcpy(ev->tried, f->tried, sizeof f->tried);
    ev->ntried = f->ntried;
    engine_emit(e, ev);
    return 1;
  }
  uint32_t h = p->algo == A_HASH ? hash_client(f->addr, f->port) : 0;
  entry_t *c = choose(p, 0, f->tried, f->ntried, h);
  if (!c) {
    uv_mutex_unlock(&e->mu);
    refuse(f, f->ntried ? "every server refused the flow" : "no available or degraded server", counted);
    return 0;
  }
  member_t *m = c->m;
  struct sockaddr_storage addr;
  server_addr(c, f->l->port, &addr);
  uv_mutex_unlock(&e->mu);
  return connect_flow(f, m, &addr);
}

static void server_failed(flow_t *f, int status) {
  member_t *m = f->m;
  char reason[96];
  errname(reason, sizeof reason, "udp ", status);
  BUMP(m->errors, 1);
  release(f);
  BUMP(f->pool->redispatched, 1);
  if (f->ntried < MAX_TRIED) f->tried[f->ntried++] = m->id;
  f->state = F_CHOOSING;
  int by_js = f->by_js;
  /* JavaScript ends its count before it is asked again; else the event names the new server. */
  if (by_js) flow_event(f, EV_REDISPATCH, m, NULL, reason);
  f->by_js = 0;
  int reopened = open_flow(f, 0);
  if (!by_js) flow_event(f, EV_REDISPATCH, m, reopened && f->state == F_OPEN ? f->m : NULL, reason);
  if (!reopened) return drop(f);
  if (f->last && (f->state == F_OPEN || f->state == F_CHOOSING)) send_to_server(f, f->last, f->last_len);
}

static flow_t *new_flow(engine_t *e, listener_t *l, pool_t *p, const struct sockaddr *a, uint32_t bucket) {
  flow_t *f = calloc(1, sizeof *f);
  f->e = e;
  f->l = l;
  l->refs += 1;
  f->pool = p;
  memcpy(&f->client, a, a->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
  peer_name(&f->client, f->addr, sizeof f->addr, &f->port);
  f->bucket = bucket;
  if (e->nfree_fslots > 0) f->slot = e->free_fslots[--e->nfree_fslots];
  else {
    f->slot = e->nfslots++;
    e->fslots = realloc(e->fslots, e->nfslots * sizeof *e->fslots);
    e->free_fslots = realloc(e->free_fslots, e->nfslots * sizeof *e->free_fslots);
  }
  e->fslots[f->slot] = f;
  static uint32_t gens;
  f->gen = ++gens;
  f->next_bucket = l->buckets[bucket];
  l->buckets[bucket] = f;
  f->next = e->flows;
  if (e->flows) e->flows->prev = f;
  e->flows = f;
  return f;
}

static void on_datagram(uv_udp_t *h, ssize_t n, const uv_buf_t *b, const struct sockaddr *a, unsigned flags) {
  listener_t *l = h->data;
  engine_t *e = h->loop->data;
  (void)flags;
  if (n < 0 || a == NULL || l->closed) return;
  uint64_t now = uv_now(h->loop);
  uint32_t bucket = bucket_of(a);
  flow_t *f = l->buckets[bucket];
  while (f && !same_client(&f->client, a)) f = f->next_bucket;
  if (!f || f->state == F_REFUSED) {
    uv_mutex_lock(&e->mu);
    pool_t *p = l->pool;
    uint64_t idle = p->idle_ms;
    uv_mutex_unlock(&e->mu);
    int again = f && now - f->refused_at < idle;
    if (!again) BUMP(p->accepted, 1);
    if (LOAD(e->live_flows) >= UDP_MAX_FLOWS) {
      char reason[64];
      snprintf(reason, sizeof reason, "flow table full (%d flows)", UDP_MAX_FLOWS);
      if (!f) {
        flow_t tmp = {.e = e, .pool = p, .l = l};
        peer_name((const struct sockaddr_storage *)a, tmp.addr, sizeof tmp.addr, &tmp.port);
        refuse(&tmp, reason, again);
      } else refuse(f, reason, again);
      return;
    }
    if (!f) {
      f = new_flow(e, l, p, a, bucket);
      e->refused_flows += 1;
      f->state = F_REFUSED;
    }
    f->pool = p;
    f->ntried = 0;
    f->by_js = 0;
    /* Counted as live from here; back to refused if no server takes it. */
    e->refused_flows -= 1;
    BUMP(e->live_flows, 1);
    f->state = F_CHOOSING;
    f->last_active = now;
    int opened = open_flow(f, again);
    if (f->state == F_CLOSED) return;
    if (!opened) {
      f->state = F_REFUSED;
      BUMP(e->live_flows, -1);
      e->refused_flows += 1;
      f->refused_at = now;
      return;
    }
  }
  f->last_active = now;
  if (f->m) {
    BUMP(f->m->bytes_in, n);
    BUMP(f->m->chunks_in, 1);
  } else {
    f->pending_in += n;
    f->pending_chunks += 1;
  }
  if ((size_t)n > f->last_len || !f->last) f->last = realloc(f->last, n ? (size_t)n : 1);
  memcpy(f->last, b->base, (size_t)n);
  f->last_len = (size_t)n;
  send_to_server(f, b->base, (size_t)n);
}

void udp_start(engine_t *e, listener_t *l) {
  l->buckets = calloc(NBUCKETS_UDP, sizeof *l->buckets);
  int err = uv_udp_recv_start(&l->udp, alloc_buf, on_datagram);
  if (err) {
    char msg[96];
    errname(msg, sizeof msg, "udp listener failed: ", err);
    engine_event(e, EV_ERROR, l->pool, NULL, NULL, NULL, 0, msg);
  }
}

/* JavaScript's answer for a flow of a pool it decides. */
void udp_chosen(engine_t *e, cmd_t *cmd) {
  flow_t *f = cmd->slot < e->nfslots ? e->fslots[cmd->slot] : NULL;
  if (!f || f->gen != cmd->gen || f->state != F_CHOOSING) {
    if (cmd->member == 0) return;
    event_t *ev = calloc(1, sizeof *ev);
    ev->type = EV_END;
    ev->udp = 1;
    ev->js = 1;
    ev->member = cmd->member;
    ev->slot = cmd->slot;
    ev->gen = cmd->gen;
    engine_emit(e, ev);
    return;
  }
  if (cmd->member == 0) {
    refuse(f, cmd->reason, f->counted);
    if (f->ntried > 0) return drop(f);
    f->state = F_REFUSED;
    BUMP(e->live_flows, -1);
    e->refused_flows += 1;
    f->refused_at = uv_now(&e->loop);
    for (int i = 0; i < f->nq; i++) free(f->q[i]);
    f->nq = 0;
    return;
  }
  uv_mutex_lock(&e->mu);
  pool_t *p = f->pool;
  entry_t *c = NULL;
  for (int i = 0; i < p->n; i++)
    if (p->entries[i].m->id == cmd->member) c = &p->entries[i];
  struct sockaddr_storage addr;
  if (c) server_addr(c, f->l->port, &addr);
  uv_mutex_unlock(&e->mu);
  f->by_js = 1;
  if (!c) {
    f->m = engine_member(e, cmd->member);
    BUMP(f->m->active, 1);
    return drop(f);
  }
  connect_flow(f, c->m, &addr);
}

void udp_close_listener(engine_t *e, listener_t *l) {
  flow_t *next;
  for (flow_t *f = e->flows; f; f = next) {
    next = f->next;
    if (f->l == l) drop(f);
  }
  free(l->buckets);
  l->buckets = NULL;
}

void udp_sweep(engine_t *e, uint64_t now) {
  flow_t *next;
  uv_mutex_lock(&e->mu);
  for (flow_t *f = e->flows; f; f = f->next) {
    uint64_t idle = f->l->pool->idle_ms;
    f->expired = f->state == F_REFUSED ? now - f->refused_at >= idle : now - f->last_active >= idle;
  }
  uv_mutex_unlock(&e->mu);
  for (flow_t *f = e->flows; f; f = next) {
    next = f->next;
    if (f->expired) drop(f);
  }
}

void udp_stop_all(engine_t *e) {
  while (e->flows) drop(e->flows);
}

void udp_free_all(engine_t *e) {
  free(e->fslots);
  free(e->free_fslots);
}
