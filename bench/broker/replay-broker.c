/*
 * replay-broker: the fastest "broker" a Kafka client can talk to. It does no work at all: every
 * request frame is answered with a response recorded beforehand from kmock for the same API key
 * and version (bench/broker/replay.ts records them), with only the correlation id changed. A
 * produce with acks=0 gets no answer, as from a real broker.
 *
 * It is the floor for the client-bound workloads of bench/broker/run.ts: what a client reaches
 * when the broker answers at once. If the client cannot reach a target against this, no broker
 * can make it.
 *
 *   replay-broker PORT RESPONSES_FILE
 *
 * RESPONSES_FILE holds records of: int16 api key, int16 api version, int32 n, then n bytes of a
 * whole response frame (its int32 size prefix included), all big-endian. It listens on
 * 127.0.0.1:PORT (the recorded Metadata answers name that port), prints "listening on
 * 127.0.0.1:PORT", and exits when stdin closes or on SIGTERM.
 *
 * Single-threaded poll() loop; blocking writes (the answers are small); TCP_NODELAY like kmock.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONNS 256
#define MAX_CANNED 256
#define MAX_FRAME (64 * 1024 * 1024)

struct canned {
  int16_t key, version;
  uint32_t len;
  unsigned char *bytes;
};

struct conn {
  int fd;
  unsigned char *buf;
  size_t len, cap;
};

static struct canned canned[MAX_CANNED];
static int ncanned;
static struct conn conns[MAX_CONNS];
static int nconns;

static uint32_t be32(const unsigned char *p) { return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]; }
static int16_t be16(const unsigned char *p) { return (int16_t)(((uint16_t)p[0] << 8) | p[1]); }

static void load(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  unsigned char h[8];
  while (fread(h, 1, 8, f) == 8) {
    if (ncanned == MAX_CANNED) { fprintf(stderr, "too many responses\n"); exit(1); }
    struct canned *c = &canned[ncanned++];
    c->key = be16(h);
    c->version = be16(h + 2);
    c->len = be32(h + 4);
    if (c->len < 8 || c->len > MAX_FRAME) { fprintf(stderr, "bad response length %u\n", c->len); exit(1); }
    c->bytes = malloc(c->len);
    if (!c->bytes || fread(c->bytes, 1, c->len, f) != c->len) { fprintf(stderr, "truncated %s\n", path); exit(1); }
  }
  fclose(f);
}

static const struct canned *find(int16_t key, int16_t version) {
  for (int i = 0; i < ncanned; i++)
    if (canned[i].key == key && canned[i].version == version) return &canned[i];
  return NULL;
}

static int write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* acks of a non-flexible Produce request (v0-v8, request header v1); -2 when it cannot be read. */
static int produce_acks(const unsigned char *frame, size_t size, int16_t version) {
  size_t at = 4 + 8; /* size, api key, version, correlation id */
  if (version >= 9 || at + 2 > 4 + size) return -2;
  int16_t client_id = be16(frame + at);
  at += 2 + (client_id > 0 ? (size_t)client_id : 0);
  if (version >= 3) {
    if (at + 2 > 4 + size) return -2;
    int16_t txn = be16(frame + at);
    at += 2 + (txn > 0 ? (size_t)txn : 0);
  }
  if (at + 2 > 4 + size) return -2;
  return be16(frame + at);
}

/* Answers every whole frame in the buffer; returns -1 to close the connection. */
static int serve(struct conn *c) {
  size_t off = 0;
  while (c->len - off >= 4) {
    uint32_t size = be32(c->buf + off);
    if (size < 8 || size > MAX_FRAME) return -1;
    if (c->len - off < 4 + (size_t)size) break;
    unsigned char *frame = c->buf + off;
    int16_t key = be16(frame + 4), version = be16(frame + 6);
    const struct canned *r = find(key, version);
    if (!r) {
      fprintf(stderr, "replay-broker: no recorded answer for api %d v%d: closing the connection\n", key, version);
      return -1;
    }
    if (!(key == 0 && produce_acks(frame, size, version) == 0)) {
      memcpy(r->bytes + 4, frame + 8, 4); /* the request's correlation id */
      if (write_all(c->fd, r->bytes, r->len) < 0) return -1;
    }
    off += 4 + (size_t)size;
  }
  memmove(c->buf, c->buf + off, c->len - off);
  c->len -= off;
  return 0;
}

static void drop(int i) {
  close(conns[i].fd);
  free(conns[i].buf);
  conns[i] = conns[--nconns];
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: replay-broker PORT RESPONSES_FILE\n"); return 2; }
  signal(SIGPIPE, SIG_IGN);
  load(argv[2]);
  int port = atoi(argv[1]);
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 128) < 0) { perror("listen"); return 1; }
  printf("listening on 127.0.0.1:%d\n", port);
  fflush(stdout);

  struct pollfd pfd[MAX_CONNS + 2];
  for (;;) {
    pfd[0].fd = 0;
    pfd[0].events = POLLIN;
    pfd[1].fd = ls;
    pfd[1].events = POLLIN;
    for (int i = 0; i < nconns; i++) {
      pfd[i + 2].fd = conns[i].fd;
      pfd[i + 2].events = POLLIN;
    }
    int n = poll(pfd, (nfds_t)nconns + 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      perror("poll");
      return 1;
    }
    if (pfd[0].revents) { /* stdin readable: EOF (or anything) means stop */
      char tmp[64];
      if (read(0, tmp, sizeof tmp) <= 0) return 0;
    }
    /* connections first: accepting changes the conns array the pollfds refer to */
    for (int i = nconns - 1; i >= 0; i--) {
      if (!pfd[i + 2].revents) continue;
      struct conn *c = &conns[i];
      if (c->cap - c->len < 65536) {
        size_t cap = c->cap * 2 < c->len + 65536 ? c->len + 65536 : c->cap * 2;
        unsigned char *b = realloc(c->buf, cap);
        if (!b) { drop(i); continue; }
        c->buf = b;
        c->cap = cap;
      }
      ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) { drop(i); continue; }
      c->len += (size_t)r;
      if (serve(c) < 0) drop(i);
    }
    if (pfd[1].revents & POLLIN) {
      int fd = accept(ls, NULL, NULL);
      if (fd >= 0) {
        if (nconns == MAX_CONNS) {
          close(fd);
        } else {
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          conns[nconns++] = (struct conn){fd, NULL, 0, 0};
        }
      }
    }
  }
}
