#define _GNU_SOURCE
/* The engine's loop thread, its command queue from JavaScript, its event queue to JavaScript,
 * and the published tables (members, pools, listeners). */
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "internal.h"
#include "loop.h"
#include "sock.h"

void errname(char *out, size_t len, const char *prefix, int status) {
  snprintf(out, len, "%s%s", prefix, uv_err_name(status));
}

int peer_name(const struct sockaddr_storage *ss, char *out, size_t len, int *port) {
  if (ss->ss_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
    *port = ntohs(a->sin_port);
    return uv_ip4_name(a, out, len);
  }
  if (ss->ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
    *port = ntohs(a->sin6_port);
    return uv_ip6_name(a, out, len);
  }
  return UV_EINVAL;
}

void engine_lock(engine_t *e) { uv_mutex_lock(&e->mu); }
void engine_unlock(engine_t *e) { uv_mutex_unlock(&e->mu); }

/* Called with the lock held (JavaScript's thread publishes tables). */
member_t *engine_member(engine_t *e, uint32_t id) {
  if (id >= e->nmembers) {
    uint32_t n = id + 64;
    e->members = realloc(e->members, n * sizeof *e->members);
    memset(e->members + e->nmembers, 0, (n - e->nmembers) * sizeof *e->members);
    e->nmembers = n;
  }
  if (!e->members[id]) {
    e->members[id] = calloc(1, sizeof(member_t));
    e->members[id]->id = id;
  }
  return e->members[id];
}

pool_t *engine_pool(engine_t *e, uint32_t id) {
  if (id >= e->npools) {
    uint32_t n = id + 16;
    e->pools = realloc(e->pools, n * sizeof *e->pools);
    memset(e->pools + e->npools, 0, (n - e->npools) * sizeof *e->pools);
    e->npools = n;
  }
  if (!e->pools[id]) {
    e->pools[id] = calloc(1, sizeof(pool_t));
    e->pools[id]->id = id;
    e->pools[id]->last = -1;
    e->pools[id]->idle_ms = 60000;
  }
  return e->pools[id];
}

void engine_set_notify(engine_t *e, void (*fn)(void *), void *arg) {
  e->notify = fn;
  e->notify_arg = arg;
}

void engine_emit(engine_t *e, event_t *ev) {
  ev->next = NULL;
  uv_mutex_lock(&e->qmu);
  int was_empty = e->events == NULL;
  if (e->events_tail) e->events_tail->next = ev;
  else e->events = ev;
  e->events_tail = ev;
  uv_mutex_unlock(&e->qmu);
  /* One wake-up for a batch: JavaScript drains the whole queue each time. */
  if (was_empty && e->notify) e->notify(e->notify_arg);
}

void engine_event(engine_t *e, int type, pool_t *p, member_t *m, member_t *to, const char *client, int client_port, const char *reason) {
  event_t *ev = calloc(1, sizeof *ev);
  ev->type = type;
  ev->pool = p ? p->id : 0;
  ev->member = m ? m->id : 0;
  ev->to = to ? to->id : 0;
  if (client) snprintf(ev->client, sizeof ev->client, "%s", client);
  ev->client_port = client_port;
  if (reason) snprintf(ev->reason, sizeof ev->reason, "%s", reason);
  engine_emit(e, ev);
}

event_t *engine_take_events(engine_t *e) {
  uv_mutex_lock(&e->qmu);
  event_t *list = e->events;
  e->events = e->events_tail = NULL;
  uv_mutex_unlock(&e->qmu);
  return list;
}

static void post(engine_t *e, cmd_t *c) {
  c->next = NULL;
  uv_mutex_lock(&e->qmu);
  if (e->cmds_tail) e->cmds_tail->next = c;
  else e->cmds = c;
  e->cmds_tail = c;
  uv_mutex_unlock(&e->qmu);
  uv_async_send(&e->wake);
}

static void on_listener_closed(uv_handle_t *h) {
  listener_t *l = h->data;
  l->closed = 2;
  listener_release(h->loop->data, l);
}

/* A listener is freed once closed and no connection refers to it any more. */
void listener_release(engine_t *e, listener_t *l) {
  if (l->closed != 2 || l->refs > 0) return;
  free(l);
  (void)e;
}

static void listener_closed_later(engine_t *e, void *arg) {
  listener_t *l = arg;
  l->closed = 2;
  listener_release(e, l);
}

static void close_listener(engine_t *e, listener_t *l) {
  if (l->closed) return;
  l->closed = 1;
  if (!l->is_udp && e->ep >= 0) {
    /* Closing the descriptor takes it out of the epoll set. */
    ep_forget(e, l->fd);
    close(l->fd);
    ep_later(e, listener_closed_later, l);
    return;
  }
  if (l->is_udp) udp_close_listener(e, l);
  uv_handle_t *h = l->is_udp ? (uv_handle_t *)&l->udp : (uv_handle_t *)&l->tcp;
  h->data = l;
  uv_close(h, on_listener_closed);
}

static void unlink_listener(engine_t *e, uint32_t id) {
  listener_t *found = NULL;
  uv_mutex_lock(&e->mu);
  for (listener_t **pp = &e->listeners; *pp; pp = &(*pp)->next) {
    if ((*pp)->id != id) continue;
    found = *pp;
    *pp = found->next;
    break;
  }
  uv_mutex_unlock(&e->mu);
  if (found) close_listener(e, found);
}

static void start_listener(engine_t *e, listener_t *l, int fd) {
  int err;
  if (l->is_udp) {
    uv_udp_init(&e->loop, &l->udp);
    l->udp.data = l;
    err = uv_udp_open(&l->udp, fd);
    if (err == 0) udp_start(e, l);
  } else if (e->ep >= 0) {
    l->fd = fd;
    err = ep_watch(e, fd, l, tcp_listener_ready);
  } else {
    uv_tcp_init(&e->loop, &l->tcp);
    l->tcp.data = l;
    err = uv_tcp_open(&l->tcp, fd);
    if (err == 0) err = uv_listen((uv_stream_t *)&l->tcp, 4096, tcp_on_connection);
  }
  if (err != 0) {
    char msg[96];
    errname(msg, sizeof msg, "listener failed: ", err);
    engine_event(e, EV_ERROR, l->pool, NULL, NULL, NULL, 0, msg);
  }
}

static void ack_drop(ack_t *a) {
  uv_mutex_lock(&a->mu);
  int last = --a->refs == 0;
  uv_mutex_unlock(&a->mu);
  if (!last) return;
  uv_cond_destroy(&a->cv);
  uv_mutex_destroy(&a->mu);
  free(a);
}

static void ack_done(ack_t *a) {
  uv_mutex_lock(&a->mu);
  a->done = 1;
  uv_cond_signal(&a->cv);
  uv_mutex_unlock(&a->mu);
  ack_drop(a);
}

static void on_wake(uv_async_t *a) {
  engine_t *e = a->data;
  uv_mutex_lock(&e->qmu);
  cmd_t *c = e->cmds;
  e->cmds = e->cmds_tail = NULL;
  uv_mutex_unlock(&e->qmu);
  while (c) {
    cmd_t *next = c->next;
    switch (c->type) {
      case C_LISTEN: start_listener(e, c->l, c->fd); break;
      case C_UNLISTEN: unlink_listener(e, c->id); break;
      case C_CHOSEN:
        if (c->udp) udp_chosen(e, c);
        else tcp_chosen(e, c);
        break;
      case C_STOP_ALL:
        tcp_stop_all(e);
        udp_stop_all(e);
        break;
      case C_QUIT:
        e->quitting = 1;
        for (;;) {
          uv_mutex_lock(&e->mu);
          listener_t *l = e->listeners;
          uv_mutex_unlock(&e->mu);
          if (!l) break;
          unlink_listener(e, l->id);
        }
        tcp_stop_all(e);
        udp_stop_all(e);
        uv_close((uv_handle_t *)&e->wake, NULL);
        uv_close((uv_handle_t *)&e->sweep, NULL);
        break;
    }
    if (c->ack) ack_done(c->ack);
    free(c);
    c = next;
  }
}

static void on_sweep(uv_timer_t *t) {
  engine_t *e = t->data;
  uint64_t now = uv_now(&e->loop);
  tcp_sweep(e, now);
  udp_sweep(e, now);
#ifdef __GLIBC__
  /* After a crowd has left (beyond the free list), give its buffers back to the system. */
  if (e->freed >= 256) {
    e->freed = 0;
    malloc_trim(0);
  }
#endif
}

static void run(void *arg) {
  engine_t *e = arg;
  /* Named so `top -H` and /proc show where the forwarding happens. */
#ifdef __linux__
  pthread_setname_np(pthread_self(), "lbdesk-engine");
#endif
  if (e->ep >= 0) ep_run(e);
  else uv_run(&e->loop, UV_RUN_DEFAULT);
}

engine_t *engine_new(void) {
  engine_t *e = calloc(1, sizeof *e);
  if (uv_loop_init(&e->loop) != 0) {
    free(e);
    return NULL;
  }
  e->loop.data = e;
  e->ep = -1;
  /* Linux: TCP on the engine's own epoll set, unless the portable path is asked for (tests). */
  const char *loop = getenv("LBDESK_NATIVE_LOOP");
  if (!loop || strcmp(loop, "uv") != 0) ep_init(e, sock_run_ready);
  uv_mutex_init(&e->mu);
  uv_mutex_init(&e->qmu);
  uv_async_init(&e->loop, &e->wake, on_wake);
  e->wake.data = e;
  uv_timer_init(&e->loop, &e->sweep);
  e->sweep.data = e;
  uv_timer_start(&e->sweep, on_sweep, SWEEP_MS, SWEEP_MS);
  if (uv_thread_create(&e->thread, run, e) != 0) {
    uv_loop_close(&e->loop);
    free(e);
    return NULL;
  }
  return e;
}

void engine_free(engine_t *e) {
  cmd_t *c = calloc(1, sizeof *c);
  c->type = C_QUIT;
  post(e, c);
  uv_thread_join(&e->thread);
  /* Sessions and flows closed by C_QUIT have run their close callbacks: the loop ended. */
  tcp_free_all(e);
  udp_free_all(e);
  uv_loop_close(&e->loop);
  if (e->ep >= 0) close(e->ep);
  free(e->later);
  free(e->fds);
  free(e->afters);
  for (event_t *ev = engine_take_events(e); ev;) {
    event_t *n = ev->next;
    free(ev);
    ev = n;
  }
  for (uint32_t i = 0; i < e->nmembers; i++) free(e->members[i]);
  for (uint32_t i = 0; i < e->npools; i++) {
    if (e->pools[i]) free(e->pools[i]->entries);
    free(e->pools[i]);
  }
  free(e->members);
  free(e->pools);
  uv_mutex_destroy(&e->mu);
  uv_mutex_destroy(&e->qmu);
  free(e);
}

int engine_parse_addr(const char *addr, int port, struct sockaddr_storage *ss) {
  memset(ss, 0, sizeof *ss);
  if (uv_ip4_addr(addr, port, (struct sockaddr_in *)ss) == 0) return 0;
  return uv_ip6_addr(addr, port, (struct sockaddr_in6 *)ss) == 0 ? 0 : -1;
}

void engine_publish(engine_t *e, uint32_t pool, int algo, uint64_t idle_ms, const row_t *rows, int n) {
  entry_t *entries = calloc(n ? (size_t)n : 1, sizeof *entries);
  engine_lock(e);
  pool_t *p = engine_pool(e, pool);
  for (int i = 0; i < n; i++) {
    const row_t *r = &rows[i];
    entry_t *c = &entries[i];
    *c = (entry_t){.m = engine_member(e, r->member), .index = r->index, .weight = r->weight, .score = r->score, .eligible = r->eligible,
                   .has2 = r->has2, .addr = r->addr, .addr2 = r->addr2, .port = r->port, .hash = r->hash, .connect_ms = r->connect_ms};
    /* Smooth weighted memory carries over for servers that stay; a new one starts at zero. */
    for (int k = 0; k < p->n; k++)
      if (p->entries[k].m == c->m) c->current = p->entries[k].current;
  }
  free(p->entries);
  p->entries = entries;
  p->n = n;
  p->algo = algo;
  p->idle_ms = idle_ms;
  engine_unlock(e);
}

void engine_member_stats(engine_t *e, const uint32_t *ids, size_t n, double *out) {
  engine_lock(e);
  for (size_t i = 0; i < n; i++) {
    member_t *m = engine_member(e, ids[i]);
    double *o = out + i * MEMBER_STATS;
    o[0] = (double)LOAD(m->active);
    o[1] = (double)LOAD(m->total);
    o[2] = (double)LOAD(m->errors);
    o[3] = (double)LOAD(m->bytes_in);
    o[4] = (double)LOAD(m->bytes_out);
    o[5] = (double)LOAD(m->chunks_in);
    for (int k = 0; k < NBUCKETS; k++) o[6 + k] = (double)LOAD(m->connect_ms[k]);
  }
  engine_unlock(e);
}

void engine_pool_stats(engine_t *e, const uint32_t *ids, size_t n, double *out) {
  engine_lock(e);
  for (size_t i = 0; i < n; i++) {
    pool_t *p = engine_pool(e, ids[i]);
    out[i * POOL_STATS] = (double)LOAD(p->accepted);
    out[i * POOL_STATS + 1] = (double)LOAD(p->refused);
    out[i * POOL_STATS + 2] = (double)LOAD(p->redispatched);
  }
  engine_unlock(e);
}

/* Binds on JavaScript's thread so an error (address in use...) is known before apply commits. */
int engine_listen(engine_t *e, uint32_t id, const char *addr, int port, int udp, int shared, int *bound, char *err, size_t errlen) {
  struct sockaddr_storage ss;
  if (engine_parse_addr(addr, port, &ss) != 0) {
    snprintf(err, errlen, "EINVAL");
    return -1;
  }
  int fd = socket(ss.ss_family, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    snprintf(err, errlen, "%s", uv_err_name(-errno));
    return -1;
  }
  int on = 1;
  if (!udp) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  /* One port for several data threads: the kernel spreads connections (and UDP flows) over them. */
  if (shared) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on);
  if (ss.ss_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
  socklen_t len = ss.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
  int rc = bind(fd, (struct sockaddr *)&ss, len);
  /* Accepted sockets inherit TCP_NODELAY from the listener on Linux: one setsockopt less each. */
  if (rc == 0 && !udp) rc = setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  if (rc == 0 && !udp) rc = listen(fd, 4096);
  if (rc == 0 && udp) {
    /* A burst of new clients arrives on this one socket while their flows open. */
    int rcvbuf = 4 * 1024 * 1024;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  }
  if (rc != 0) {
    snprintf(err, errlen, "%s", uv_err_name(-errno));
    close(fd);
    return -1;
  }
  struct sockaddr_storage got;
  socklen_t glen = sizeof got;
  getsockname(fd, (struct sockaddr *)&got, &glen);
  char ignored[64];
  peer_name(&got, ignored, sizeof ignored, bound);

  listener_t *l = calloc(1, sizeof *l);
  l->id = id;
  l->fd = fd;
  l->is_udp = udp;
  l->port = *bound;
  uv_mutex_lock(&e->mu);
  l->pool = engine_pool(e, 0);
  l->next = e->listeners;
  e->listeners = l;
  uv_mutex_unlock(&e->mu);
  cmd_t *c = calloc(1, sizeof *c);
  c->type = C_LISTEN;
  c->l = l;
  c->fd = fd;
  post(e, c);
  return 0;
}

void engine_set_listener(engine_t *e, uint32_t id, uint32_t pool, int secondary) {
  uv_mutex_lock(&e->mu);
  pool_t *p = engine_pool(e, pool);
  for (listener_t *l = e->listeners; l; l = l->next) {
    if (l->id != id) continue;
    l->pool = p;
    l->secondary = secondary;
  }
  uv_mutex_unlock(&e->mu);
}

void engine_unlisten(engine_t *e, uint32_t id) {
  /* A TCP listener stops accepting at once (shutdown on a listening socket, Linux), so whoever
   * removed it finds the port closed; the loop thread closes the descriptor, under this lock.
   * Not on libuv's handles: its accept loop would retry the failing accept forever. */
  uv_mutex_lock(&e->mu);
  for (listener_t *l = e->listeners; l && e->ep >= 0; l = l->next)
    if (l->id == id && !l->is_udp) shutdown(l->fd, SHUT_RDWR);
  uv_mutex_unlock(&e->mu);
  cmd_t *c = calloc(1, sizeof *c);
  c->type = C_UNLISTEN;
  c->id = id;
  /* Returns once the loop thread has closed the socket (UDP, and TCP on libuv's handles), so a
   * listener added next on the same address and port can bind. Bounded: a loop that has quit
   * never runs the command. */
  ack_t *ack = calloc(1, sizeof *ack);
  uv_mutex_init(&ack->mu);
  uv_cond_init(&ack->cv);
  ack->refs = 2;
  c->ack = ack;
  post(e, c);
  uv_mutex_lock(&ack->mu);
  while (!ack->done && uv_cond_timedwait(&ack->cv, &ack->mu, 2000000000ull) == 0) {
  }
  uv_mutex_unlock(&ack->mu);
  ack_drop(ack);
}

void engine_chosen(engine_t *e, int udp, uint32_t slot, uint32_t gen, uint32_t member, const char *reason) {
  cmd_t *c = calloc(1, sizeof *c);
  c->udp = udp;
  c->type = C_CHOSEN;
  c->slot = slot;
  c->gen = gen;
  c->member = member;
  snprintf(c->reason, sizeof c->reason, "%s", reason ? reason : "");
  post(e, c);
}

void engine_stop_all(engine_t *e) {
  cmd_t *c = calloc(1, sizeof *c);
  c->type = C_STOP_ALL;
  post(e, c);
}

int engine_live(engine_t *e, int64_t *sessions, int64_t *flows) {
  *sessions = LOAD(e->live_sessions);
  *flows = LOAD(e->live_flows);
  return 0;
}

const char *engine_loop_name(engine_t *e) { return e->ep >= 0 ? "epoll" : "libuv"; }
