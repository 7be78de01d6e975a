/* One TCP socket of the relay, on either of two loops: libuv's handles (portable), or on Linux
 * the engine's own edge-triggered epoll set (fewer system calls per connection: each socket is
 * added once for reading and writing, never modified or removed, and a connect's result comes
 * from its first event without getsockopt). tcp.c sees the same calls and callbacks on both. */
#ifndef LBDESK_SOCK_H
#define LBDESK_SOCK_H

#include "model.h"

typedef struct sock sock_t;
typedef void (*sock_alloc_cb)(sock_t *k, uv_buf_t *b);
typedef void (*sock_read_cb)(sock_t *k, ssize_t n);  /* n > 0, UV_EOF, UV_ENOBUFS or an error */
typedef void (*sock_cb)(sock_t *k, int status);       /* connect, write, shutdown */
typedef void (*sock_close_cb)(sock_t *k);

struct sock {
  uv_tcp_t h;             /* the portable loop's handle */
  uv_write_t w;
  uv_shutdown_t sh;
  uv_connect_t cr;
  engine_t *e;
  void *data;
  int server;             /* tcp.c: a socket to a server (its data is an sconn_t, else a session) */
  sock_alloc_cb alloc;
  sock_read_cb on_read;
  sock_cb on_connect, on_write, on_shut;
  sock_close_cb on_close;
  /* epoll loop only */
  int fd;
  uint64_t id;            /* its epoll event data */
  unsigned reading : 1, can_read : 1, hup : 1, eof : 1, connecting : 1, writing : 1;
  unsigned shut_wanted : 1, shut_done : 1, closed : 1, queued : 1, probe : 1;
  unsigned fin_queued : 1;  /* the peer's FIN came with this edge (EPOLLRDHUP, no error): EOF follows */
  unsigned corked : 1;      /* bytes sent with MSG_MORE wait for the shutdown that follows */
  sock_alloc_cb first;    /* what a connecting socket may send at once (sock_speculate) */
  size_t early;           /* bytes of it sent before the connect was reported */
  int shut_status;
  const char *wbuf;
  size_t wlen;
  struct sockaddr_storage peer;
  int have_peer;
  sock_t *next_ready;
};

/* The socket of an accepted connection (epoll: fd from accept4 with the peer's address). */
void sock_init(engine_t *e, sock_t *k, void *data);
int sock_accept(sock_t *k, uv_stream_t *server);
int sock_adopt(sock_t *k, int fd, const struct sockaddr_storage *peer);
int sock_connect(sock_t *k, const struct sockaddr *addr, sock_cb cb);
void sock_speculate(sock_t *k, sock_alloc_cb first);
size_t sock_take_early(sock_t *k);
void sock_read_start(sock_t *k, sock_alloc_cb alloc, sock_read_cb cb);
void sock_read_stop(sock_t *k);
/* `from`: the socket the bytes were read from (NULL: none); see sock_try_write in sock.c. */
int sock_try_write(sock_t *k, const sock_t *from, const char *data, size_t n);
int sock_write(sock_t *k, const char *data, size_t n, sock_cb cb);
int sock_shutdown(sock_t *k, sock_cb cb);
void sock_close(sock_t *k, int reset, sock_close_cb cb);
int sock_peer(sock_t *k, struct sockaddr_storage *ss);

/* The epoll loop's ready queue: one socket's deferred turn (loop.h runs it); 0 when empty. */
int sock_run_ready(engine_t *e);
/* Runs the whole ready queue now: a listener between two accepts, so that each client's first
 * bytes are read and sent to its server right after its connect (bench/engine-notes.md). */
void sock_run_all(engine_t *e);

#endif
