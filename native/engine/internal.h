/* What engine.c, tcp.c and udp.c share inside the loop thread. */
#ifndef LBDESK_INTERNAL_H
#define LBDESK_INTERNAL_H

#include "model.h"

typedef struct session session_t;
typedef struct sock sock_t;
typedef struct flow flow_t;

enum cmd_type { C_LISTEN, C_UNLISTEN, C_CHOSEN, C_STOP_ALL, C_QUIT };

/* A caller waiting until the loop thread has run its command; freed by whichever side is last. */
typedef struct ack {
  uv_mutex_t mu;
  uv_cond_t cv;
  int done, refs;
} ack_t;

typedef struct cmd {
  int type;
  ack_t *ack;
  listener_t *l;
  uint32_t id, slot, gen, member;
  int udp;
  int fd;
  char reason[96];
  struct cmd *next;
} cmd_t;

struct engine {
  uv_loop_t loop;
  uv_thread_t thread;
  uv_async_t wake;
  uv_timer_t sweep;
  uv_mutex_t mu;      /* pools' tables, listeners' pool pointers, members and pools arrays */
  uv_mutex_t qmu;     /* commands and events */
  member_t **members;
  uint32_t nmembers;
  pool_t **pools;
  uint32_t npools;
  listener_t *listeners;
  cmd_t *cmds, *cmds_tail;
  event_t *events, *events_tail;
  void (*notify)(void *);
  void *notify_arg;
  /* Sessions: slots (for JavaScript's answers), a free list, and the live list. */
  session_t **slots;
  uint32_t nslots;
  uint32_t *free_slots;
  uint32_t nfree_slots;
  session_t *free;
  uint32_t nfree;
  session_t *live;
  int64_t live_sessions, live_flows;
  uint32_t freed;     /* sessions freed since memory was last given back */
  /* Small relay buffers not in use: a session holds one only while bytes are in it (tcp.c). */
  char **bufs;
  uint32_t nbufs, capbufs;
  /* UDP flows: slots (for JavaScript's answers) and the live list. */
  flow_t **fslots;
  uint32_t nfslots;
  uint32_t *free_fslots;
  uint32_t nfree_fslots;
  flow_t *flows;
  int64_t refused_flows;
  char udp_buf[65536];
  /* The epoll loop (Linux; -1 = libuv's handles for TCP too): ready sockets, deferred calls. */
  int ep;
  int quitting;
  sock_t *ready, *ready_tail;
  /* By descriptor: what an event names (a forked child can keep a closed fd's registration
   * alive for a moment, so an event is trusted only if its generation matches). */
  struct fdent { ep_cb on; void *p; uint32_t gen; } *fds;
  uint32_t nfds, gen;
  int (*run_ready)(engine_t *);  /* the socket layer's ready queue (sock.c) */
  struct after { uint64_t id; ep_cb on; void (*fn)(engine_t *, void *); } *afters;  /* after the next wait */
  uint32_t nafters, capafters;
  struct later { void (*fn)(engine_t *, void *); void *arg; } *later;
  uint32_t nlater, caplater;
};

/* tcp.c */
void tcp_on_connection(uv_stream_t *server, int status);
void tcp_listener_ready(engine_t *e, void *listener, uint32_t events);
void tcp_chosen(engine_t *e, cmd_t *c);
void tcp_sweep(engine_t *e, uint64_t now);
void tcp_stop_all(engine_t *e);
void tcp_free_all(engine_t *e);

/* udp.c */
void udp_start(engine_t *e, listener_t *l);
void udp_chosen(engine_t *e, cmd_t *c);
void udp_close_listener(engine_t *e, listener_t *l);
void udp_sweep(engine_t *e, uint64_t now);
void udp_stop_all(engine_t *e);
void udp_free_all(engine_t *e);

/* engine.c */
void listener_release(engine_t *e, listener_t *l);
void engine_event(engine_t *e, int type, pool_t *p, member_t *m, member_t *to, const char *client, int client_port, const char *reason);
void errname(char *out, size_t len, const char *prefix, int status);
int peer_name(const struct sockaddr_storage *ss, char *out, size_t len, int *port);

#endif
