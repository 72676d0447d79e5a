// A design probe for the open model, not part of the product: one thread paces, sends and reads
// HTTP/1.1 keep-alive requests with epoll and nanosecond timeouts, and times each answer from its
// due time, as the engine does. bench/contention.ts runs it beside the engine, oha and vegeta
// (BENCH_NATIVE=1) to measure what a sender without a JavaScript event loop reads on this host.
// It handles only what the probe needs: a GET, answers with Content-Length, no TLS.
//
// usage: sender <ipv4> <port> <rate/s> <seconds> <connections> <path>
// prints: {"n":…,"errors":…,"p50":ms,"p99":ms,"lag50":ms,"lag99":ms,"sendP50":ms,"sendP99":ms}
// (p50/p99 from the due time; lag is due → written; sendP50/P99 from the write, as tools that
// start the clock when their pacer wakes report it)
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  int fd;
  int busy;
  int64_t due;
  int64_t sent;
  char buf[65536];
  int len;
} Conn;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: %s <ipv4> <port> <rate/s> <seconds> <connections> <path>\n", argv[0]);
    return 2;
  }
  const char *ip = argv[1];
  int port = atoi(argv[2]), nconn = atoi(argv[5]);
  double rate = atof(argv[3]), seconds = atof(argv[4]);
  char req[1024];
  int reqlen = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s:%d\r\n\r\n", argv[6], ip, port);
  // The kernel's default 50 µs of timer slack would make every wake-up that much late.
  prctl(PR_SET_TIMERSLACK, 1UL);
  int ep = epoll_create1(0);
  Conn *conns = calloc(nconn, sizeof(Conn));
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
  if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1) return 2;
  for (int i = 0; i < nconn; i++) {
    conns[i].fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(conns[i].fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
      perror("connect");
      return 1;
    }
    int one = 1;
    setsockopt(conns[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(conns[i].fd, F_SETFL, O_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
    epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
  }
  long total = (long)(rate * seconds);
  double interval = 1e9 / rate;
  int64_t *latency = malloc(sizeof(int64_t) * total), *lag = malloc(sizeof(int64_t) * total);
  int64_t *from_send = malloc(sizeof(int64_t) * total);
  int64_t *waiting = malloc(sizeof(int64_t) * total);
  long answered = 0, lagged = 0, next = 0, head = 0, tail = 0, errors = 0;
  int64_t zero = now_ns() + 50000000LL;
  struct epoll_event events[64];
  while (answered + errors < total) {
    int64_t now = now_ns();
    // Whatever fell due waits for a free connection in due order; its latency counts from then.
    while (next < total && zero + (int64_t)(next * interval) <= now) waiting[tail++] = zero + (int64_t)(next++ * interval);
    for (int i = 0; i < nconn && head < tail; i++) {
      if (conns[i].busy) continue;
      int64_t due = waiting[head++];
      int64_t sent = now_ns();
      lag[lagged++] = sent - due;
      conns[i].busy = 1;
      conns[i].due = due;
      conns[i].sent = sent;
      conns[i].len = 0;
      if (write(conns[i].fd, req, reqlen) != reqlen) {
        errors++;
        conns[i].busy = 0;
      }
    }
    int64_t wait = next < total ? zero + (int64_t)(next * interval) - now_ns() : 100000000LL;
    if (wait < 0) wait = 0;
    struct timespec timeout = {.tv_sec = wait / 1000000000LL, .tv_nsec = wait % 1000000000LL};
    int n = epoll_pwait2(ep, events, 64, &timeout, NULL);
    for (int k = 0; k < n; k++) {
      Conn *c = &conns[events[k].data.u32];
      int r = read(c->fd, c->buf + c->len, sizeof c->buf - c->len - 1);
      if (r <= 0) {
        if (r < 0 && errno == EAGAIN) continue;
        fprintf(stderr, "the server closed a connection\n");
        return 1;
      }
      c->len += r;
      c->buf[c->len] = 0;
      char *end = strstr(c->buf, "\r\n\r\n");
      if (!end) continue;
      char *length = strcasestr(c->buf, "\r\ncontent-length:");
      long body = length && length < end ? atol(length + 17) : 0;
      if (c->len < (end + 4 - c->buf) + body) continue;
      int64_t done = now_ns();
      from_send[answered] = done - c->sent;
      latency[answered++] = done - c->due;
      c->busy = 0;
      c->len = 0;
    }
  }
  qsort(latency, answered, sizeof(int64_t), by_value);
  qsort(lag, lagged, sizeof(int64_t), by_value);
  qsort(from_send, answered, sizeof(int64_t), by_value);
  printf("{\"n\":%ld,\"errors\":%ld,\"p50\":%.4f,\"p99\":%.4f,\"lag50\":%.4f,\"lag99\":%.4f,\"sendP50\":%.4f,\"sendP99\":%.4f}\n",
         answered, errors, latency[answered / 2] / 1e6, latency[(long)(answered * 0.99)] / 1e6, lag[lagged / 2] / 1e6,
         lag[(long)(lagged * 0.99)] / 1e6, from_send[answered / 2] / 1e6, from_send[(long)(answered * 0.99)] / 1e6);
  return 0;
}
