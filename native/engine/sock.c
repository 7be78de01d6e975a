#define _GNU_SOURCE
/* The relay's sockets on libuv's handles, or on Linux on the engine's own epoll loop (loop.c;
 * see sock.h). epoll rules: each socket is added once, edge-triggered, for reading and writing;
 * closing the descriptor removes it. A read shorter than the buffer drained the socket (a later
 * byte or FIN is a new edge); callbacks that libuv defers (shutdown, close) run after the batch
 * of events. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#endif
#include "internal.h"
#include "loop.h"
#include "sock.h"

#define EP(k) ((k)->e->ep >= 0)
#define READS_PER_EVENT 16

/* ---- the portable path: libuv's handles ---- */

static void uv_alloc_tramp(uv_handle_t *h, size_t hint, uv_buf_t *b) {
  sock_t *k = h->data;
  (void)hint;
  k->alloc(k, b);
}

static void uv_read_tramp(uv_stream_t *h, ssize_t n, const uv_buf_t *b) {
  sock_t *k = h->data;
  (void)b;
  if (n != 0) k->on_read(k, n);
}

static void uv_connect_tramp(uv_connect_t *r, int status) {
  sock_t *k = r->data;
  k->on_connect(k, status);
}

static void uv_write_tramp(uv_write_t *r, int status) {
  sock_t *k = r->data;
  k->on_write(k, status);
}

static void uv_shut_tramp(uv_shutdown_t *r, int status) {
  sock_t *k = r->data;
  k->on_shut(k, status);
}

static void uv_close_tramp(uv_handle_t *h) {
  sock_t *k = h->data;
  k->on_close(k);
}

void sock_init(engine_t *e, sock_t *k, void *data) {
  memset(k, 0, sizeof *k);
  k->e = e;
  k->data = data;
  k->fd = -1;
  k->h.data = k;
  k->w.data = k;
  k->sh.data = k;
  k->cr.data = k;
}

int sock_accept(sock_t *k, uv_stream_t *server) {
  uv_tcp_init(&k->e->loop, &k->h);
  k->h.data = k;
  return uv_accept(server, (uv_stream_t *)&k->h);
}

int sock_peer(sock_t *k, struct sockaddr_storage *ss) {
  if (EP(k)) {
    if (!k->have_peer) return UV_ENOTCONN;
    *ss = k->peer;
    return 0;
  }
  int len = sizeof *ss;
  return uv_tcp_getpeername(&k->h, (struct sockaddr *)ss, &len);
}

#ifdef __linux__
/* ---- the epoll path ---- */

static void queue(sock_t *k) {
  engine_t *e = k->e;
  if (k->queued || k->closed) return;
  k->queued = 1;
  k->next_ready = NULL;
  if (e->ready_tail) e->ready_tail->next_ready = k;
  else e->ready = k;
  e->ready_tail = k;
}

static void on_event(sock_t *k, uint32_t ev);
static void sock_ready(engine_t *e, void *p, uint32_t ev) {
  (void)e;
  on_event(p, ev);
}

static int watch(sock_t *k) {
  return ep_add(k->e, k->fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, k, sock_ready, &k->id);
}

static void do_read(sock_t *k) {
  for (int i = 0; i < READS_PER_EVENT; i++) {
    if (!k->reading || k->closed || k->eof || k->connecting || !k->can_read) return;
    uv_buf_t b;
    k->alloc(k, &b);
    if (b.len == 0) return k->on_read(k, UV_ENOBUFS);
    ssize_t n = read(k->fd, b.base, b.len);
    if (n > 0) {
      if ((size_t)n < b.len && !k->hup) k->can_read = 0;
      k->on_read(k, n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    k->can_read = 0;
    if (n == 0) {
      k->eof = 1;
      return k->on_read(k, UV_EOF);
    }
    if (errno != EAGAIN) return k->on_read(k, -errno);
    return;
  }
  queue(k); /* more to read: after the other sockets have had their turn */
}

static void do_shutdown(sock_t *k) {
  k->shut_wanted = 0;
  k->shut_status = shutdown(k->fd, SHUT_WR) == 0 ? 0 : -errno;
  k->shut_done = 1;
  queue(k);
}

static void do_write(sock_t *k) {
  while (k->wlen > 0) {
    ssize_t n = write(k->fd, k->wbuf, k->wlen);
    if (n >= 0) {
      k->wbuf += n;
      k->wlen -= (size_t)n;
    } else if (errno == EAGAIN) return;
    else if (errno != EINTR) {
      k->writing = 0;
      k->wlen = 0;
      k->on_write(k, -errno);
      if (!k->closed && k->shut_wanted) do_shutdown(k);
      return;
    }
  }
  k->writing = 0;
  k->on_write(k, 0);
  if (!k->closed && k->shut_wanted && !k->writing) do_shutdown(k);
}

/* A shutdown with nothing left to write waits for the next wait's events: when the peer has
 * closed meanwhile (a client that read its answer), the close sends the FIN without it. */
static void shut_now(engine_t *e, void *p) {
  sock_t *k = p;
  (void)e;
  if (!k->closed && k->shut_wanted && !k->writing && !k->connecting) do_shutdown(k);
}

static void shut_soon(sock_t *k) { ep_after_wait(k->e, k->id, sock_ready, shut_now); }

static void on_event(sock_t *k, uint32_t ev) {
  if (k->closed) return;
  if (ev & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) k->hup = 1;
  if ((ev & EPOLLRDHUP) && !(ev & EPOLLERR)) k->fin_queued = 1;
  if (k->connecting) {
    /* The connect's result is its first event: getsockopt only when it failed. */
    if (ev & (EPOLLERR | EPOLLHUP)) {
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(k->fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err) {
        k->connecting = 0;
        return k->on_connect(k, -err);
      }
    } else if (!(ev & EPOLLOUT)) return;
    k->connecting = 0;
    k->on_connect(k, 0);
    if (k->closed) return;
    if (k->shut_wanted && !k->writing) do_shutdown(k);
  }
  if (k->writing && (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
    do_write(k);
    if (k->closed) return;
  }
  if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
    k->can_read = 1;
    do_read(k);
  }
}

/* A loopback connect is usually complete when connect() returns: the first bytes go at once and
 * their success reports the connect (EAGAIN: not yet, the first event will say). */
static void probe_connect(sock_t *k) {
  uv_buf_t b;
  k->first(k, &b);
  if (b.len == 0) return;
  ssize_t n = write(k->fd, b.base, b.len);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  k->connecting = 0;
  if (n >= 0) k->early = (size_t)n;
  k->on_connect(k, n >= 0 ? 0 : -errno);
  if (!k->closed && k->shut_wanted && !k->writing) shut_soon(k);
}

static void run_ready(sock_t *k) {
  if (k->closed) return;
  if (k->probe) {
    k->probe = 0;
    if (k->connecting) return probe_connect(k);
  }
  if (k->shut_done) {
    k->shut_done = 0;
    k->on_shut(k, k->shut_status);
    if (k->closed) return;
  }
  do_read(k);
}

/* A closed socket's pending requests end as cancelled, then its close callback: as libuv does. */
static void closed_later(engine_t *e, void *arg) {
  sock_t *k = arg;
  (void)e;
  if (k->connecting) {
    k->connecting = 0;
    k->on_connect(k, UV_ECANCELED);
  }
  if (k->writing) {
    k->writing = 0;
    k->on_write(k, UV_ECANCELED);
  }
  if (k->shut_wanted || k->shut_done) {
    k->shut_wanted = k->shut_done = 0;
    k->on_shut(k, UV_ECANCELED);
  }
  k->on_close(k);
}

/* One socket of the ready queue (the loop runs it before its deferred calls); 0: none. */
int sock_run_ready(engine_t *e) {
  sock_t *k = e->ready;
  if (!k) return 0;
  e->ready = k->next_ready;
  if (!e->ready) e->ready_tail = NULL;
  k->queued = 0;
  run_ready(k);
  return 1;
}

void sock_run_all(engine_t *e) {
  while (sock_run_ready(e)) {}
}

int sock_adopt(sock_t *k, int fd, const struct sockaddr_storage *peer) {
  k->fd = fd;
  k->can_read = 1; /* read at once: a client's first bytes are usually there when it is accepted */
  k->peer = *peer;
  k->have_peer = 1;
  return watch(k);
}
#else
int sock_run_ready(engine_t *e) { return (void)e, 0; }
void sock_run_all(engine_t *e) { (void)e; }
int sock_adopt(sock_t *k, int fd, const struct sockaddr_storage *peer) { return (void)k, (void)fd, (void)peer, UV_ENOSYS; }
#endif

/* ---- the calls tcp.c makes, on either path ---- */

int sock_connect(sock_t *k, const struct sockaddr *addr, sock_cb cb) {
  k->on_connect = cb;
#ifdef __linux__
  if (EP(k)) {
    k->fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (k->fd < 0) return -errno;
    int on = 1;
    setsockopt(k->fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    socklen_t len = addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (connect(k->fd, addr, len) != 0 && errno != EINPROGRESS) return -errno;
    k->connecting = 1;
    int err = watch(k);
    if (err) k->connecting = 0;
    return err;
  }
#endif
  uv_tcp_init(&k->e->loop, &k->h);
  k->h.data = k;
  uv_tcp_nodelay(&k->h, 1);
  return uv_tcp_connect(&k->cr, &k->h, addr, uv_connect_tramp);
}

/* Epoll loop: after this turn's reads, send `first`'s bytes if the connect is already done. */
void sock_speculate(sock_t *k, sock_alloc_cb first) {
#ifdef __linux__
  if (EP(k) && k->connecting) {
    k->first = first;
    k->probe = 1;
    queue(k);
  }
#else
  (void)k, (void)first;
#endif
}

size_t sock_take_early(sock_t *k) {
  size_t n = k->early;
  k->early = 0;
  return n;
}

void sock_read_start(sock_t *k, sock_alloc_cb alloc, sock_read_cb cb) {
  k->alloc = alloc;
  k->on_read = cb;
#ifdef __linux__
  if (EP(k)) {
    k->reading = 1;
    if (k->can_read && !k->eof && !k->connecting) queue(k);
    return;
  }
#endif
  uv_read_start((uv_stream_t *)&k->h, uv_alloc_tramp, uv_read_tramp);
}

void sock_read_stop(sock_t *k) {
  if (EP(k)) k->reading = 0;
  else uv_read_stop((uv_stream_t *)&k->h);
}

/* Bytes written, UV_EAGAIN, or an error. Bytes read from a socket whose peer's FIN is already
 * queued behind them go with MSG_MORE: the shutdown that follows their EOF sends them and the
 * FIN in one segment, as HAProxy does (a segment and its ACK less per closing connection on
 * each side, which is kernel time: bench/engine-notes.md). */
int sock_try_write(sock_t *k, const sock_t *from, const char *data, size_t n) {
  if (EP(k)) {
    if (k->connecting || k->writing) return UV_EAGAIN;
    int more = from && from->fin_queued && !from->eof;
    int flags = MSG_DONTWAIT | MSG_NOSIGNAL | (more ? MSG_MORE : 0);
    ssize_t r;
    do r = send(k->fd, data, n, flags);
    while (r < 0 && errno == EINTR);
    if (r >= 0) {
      k->corked = more;
      return (int)r;
    }
    return errno == EAGAIN ? UV_EAGAIN : -errno;
  }
  uv_buf_t b = uv_buf_init((char *)data, (unsigned)n);
  int r = uv_try_write((uv_stream_t *)&k->h, &b, 1);
  return r == UV_ENOSYS ? UV_EAGAIN : r;
}

/* Writes the rest when the socket takes it (one write at a time); `data` must stay valid. */
int sock_write(sock_t *k, const char *data, size_t n, sock_cb cb) {
  k->on_write = cb;
  if (EP(k)) {
    /* The try that came first filled the socket: its next EPOLLOUT edge resumes this. */
    k->wbuf = data;
    k->wlen = n;
    k->writing = 1;
    return 0;
  }
  uv_buf_t b = uv_buf_init((char *)data, (unsigned)n);
  return uv_write(&k->w, (uv_stream_t *)&k->h, &b, 1, uv_write_tramp);
}

/* After the pending write, as libuv does; the callback comes later. */
int sock_shutdown(sock_t *k, sock_cb cb) {
  k->on_shut = cb;
#ifdef __linux__
  if (EP(k)) {
    k->shut_wanted = 1;
    /* Corked bytes go with the FIN now: waiting a turn would only hold the answer back. */
    if (!k->writing && !k->connecting) {
      if (k->corked) do_shutdown(k);
      else shut_soon(k);
    }
    return 0;
  }
#endif
  return uv_shutdown(&k->sh, (uv_stream_t *)&k->h, uv_shut_tramp);
}

/* `reset` sends an RST instead of a FIN, except while a shutdown is in flight (libuv refuses it). */
void sock_close(sock_t *k, int reset, sock_close_cb cb) {
  k->on_close = cb;
#ifdef __linux__
  if (EP(k)) {
    k->closed = 1;
    if (k->fd >= 0) {
      if (reset && !k->shut_wanted && !k->shut_done) {
        struct linger lg = {1, 0};
        setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
      }
      ep_forget(k->e, k->fd);
      close(k->fd);
      k->fd = -1;
    }
    ep_later(k->e, closed_later, k);
    return;
  }
#endif
  if (!reset || uv_tcp_close_reset(&k->h, uv_close_tramp) != 0) uv_close((uv_handle_t *)&k->h, uv_close_tramp);
}
