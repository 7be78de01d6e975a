#define _GNU_SOURCE
/* The engine's own epoll loop (see loop.h). An event's data is the descriptor and a generation:
 * a forked child can keep a closed descriptor's registration alive for a moment, so an event is
 * trusted only if its generation matches what the descriptor holds now. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/epoll.h>
#endif
#include "internal.h"
#include "loop.h"

#define EP_BATCH 256

#ifdef __linux__
void ep_later(engine_t *e, void (*fn)(engine_t *, void *), void *arg) {
  if (e->nlater == e->caplater) {
    e->caplater = e->caplater ? e->caplater * 2 : 64;
    e->later = realloc(e->later, e->caplater * sizeof *e->later);
  }
  e->later[e->nlater].fn = fn;
  e->later[e->nlater].arg = arg;
  e->nlater += 1;
}

/* An event's data: the descriptor and a generation (0 is libuv's loop). */
static uint64_t enter(engine_t *e, int fd, void *p, ep_cb on) {
  if ((uint32_t)fd >= e->nfds) {
    uint32_t n = (uint32_t)fd + 1024;
    e->fds = realloc(e->fds, n * sizeof *e->fds);
    memset(e->fds + e->nfds, 0, (n - e->nfds) * sizeof *e->fds);
    e->nfds = n;
  }
  if (++e->gen == 0) e->gen = 1;
  e->fds[fd] = (struct fdent){on, p, e->gen};
  return (uint64_t)e->gen << 32 | (uint32_t)fd;
}

/* What an event id names now, or NULL when that descriptor was closed since. */
static struct fdent *lookup(engine_t *e, uint64_t id) {
  uint32_t fd = (uint32_t)id;
  if (fd >= e->nfds || !e->fds[fd].p || e->fds[fd].gen != (uint32_t)(id >> 32)) return NULL;
  return &e->fds[fd];
}

int ep_add(engine_t *e, int fd, uint32_t events, void *p, ep_cb on, uint64_t *id) {
  struct epoll_event ev = {.events = events, .data.u64 = enter(e, fd, p, on)};
  if (id) *id = ev.data.u64;
  return epoll_ctl(e->ep, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : -errno;
}

int ep_watch(engine_t *e, int fd, void *p, ep_cb on) { return ep_add(e, fd, EPOLLIN, p, on, NULL); }

void ep_forget(engine_t *e, int fd) {
  if (fd >= 0 && (uint32_t)fd < e->nfds) e->fds[fd].p = NULL;
}

int ep_unwatch(engine_t *e, int fd) {
  struct epoll_event ev = {0};
  ep_forget(e, fd);
  return epoll_ctl(e->ep, EPOLL_CTL_DEL, fd, &ev) == 0 ? 0 : -errno;
}

void ep_after_wait(engine_t *e, uint64_t id, ep_cb on, void (*fn)(engine_t *, void *)) {
  if (e->nafters == e->capafters) {
    e->capafters = e->capafters ? e->capafters * 2 : 64;
    e->afters = realloc(e->afters, e->capafters * sizeof *e->afters);
  }
  e->afters[e->nafters++] = (struct after){id, on, fn};
}

static void run_afters(engine_t *e, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    struct fdent *f = lookup(e, e->afters[i].id);
    if (f && f->on == e->afters[i].on) e->afters[i].fn(e, f->p);
  }
  memmove(e->afters, e->afters + n, (e->nafters - n) * sizeof *e->afters);
  e->nafters -= n;
}

/* Ready sockets first, then deferred calls (closes free what the ready queue may name). */
static void drain(engine_t *e) {
  for (;;) {
    if (e->run_ready(e)) continue;
    if (e->nlater == 0) return;
    for (uint32_t i = 0; i < e->nlater; i++) e->later[i].fn(e, e->later[i].arg);
    e->nlater = 0;
  }
}

int ep_init(engine_t *e, int (*ready)(engine_t *)) {
  e->run_ready = ready;
  e->ep = epoll_create1(EPOLL_CLOEXEC);
  if (e->ep < 0) return -errno;
  /* libuv's own loop (timers, the wake-up, UDP) is one more source in this set. */
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 0};
  if (epoll_ctl(e->ep, EPOLL_CTL_ADD, uv_backend_fd(&e->loop), &ev) != 0) {
    int err = -errno;
    close(e->ep);
    e->ep = -1;
    return err;
  }
  return 0;
}

void ep_run(engine_t *e) {
  struct epoll_event evs[EP_BATCH];
  uv_run(&e->loop, UV_RUN_NOWAIT);
  for (;;) {
    drain(e);
    if (e->quitting && !uv_loop_alive(&e->loop)) break;
    uv_update_time(&e->loop);
    uint32_t afters = e->nafters;
    int n = epoll_wait(e->ep, evs, EP_BATCH, afters ? 0 : uv_backend_timeout(&e->loop));
    int uv_ready = 0;
    for (int i = 0; i < n; i++) {
      struct fdent *f = evs[i].data.u64 ? lookup(e, evs[i].data.u64) : NULL;
      if (evs[i].data.u64 == 0) uv_ready = 1;
      else if (f) f->on(e, f->p, evs[i].events);
    }
    drain(e);
    if (afters) {
      run_afters(e, afters);
      drain(e);
    }
    uv_update_time(&e->loop);
    if (uv_ready || uv_backend_timeout(&e->loop) == 0) uv_run(&e->loop, UV_RUN_NOWAIT);
  }
}
#else
int ep_init(engine_t *e, int (*ready)(engine_t *)) {
  (void)ready;
  e->ep = -1;
  return UV_ENOSYS;
}
void ep_run(engine_t *e) { (void)e; }
void ep_forget(engine_t *e, int fd) { (void)e, (void)fd; }
void ep_later(engine_t *e, void (*fn)(engine_t *, void *), void *arg) { (void)e, (void)fn, (void)arg; }
int ep_add(engine_t *e, int fd, uint32_t events, void *p, ep_cb on, uint64_t *id) { return (void)e, (void)fd, (void)events, (void)p, (void)on, (void)id, UV_ENOSYS; }
int ep_watch(engine_t *e, int fd, void *p, ep_cb on) { return (void)e, (void)fd, (void)p, (void)on, UV_ENOSYS; }
int ep_unwatch(engine_t *e, int fd) { return (void)e, (void)fd, UV_ENOSYS; }
void ep_after_wait(engine_t *e, uint64_t id, ep_cb on, void (*fn)(engine_t *, void *)) { (void)e, (void)id, (void)on, (void)fn; }
#endif
