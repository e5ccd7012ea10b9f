/*
 * bare_dump: the least a program can do to read what restop reads, as the
 * baseline of the perf scenario (tests/vm/scenarios/perf.sh): a NETLINK_RDMA
 * socket, one GET dump for the device list, then the seven RES_*_GET dumps
 * of every device, each read until NLMSG_DONE and thrown away.
 *
 *   bare_dump [-s] [-c] [-n REPEAT]
 *
 *   -s         the summary instead of the object dumps: one RES_GET dump
 *              (no attributes: every device), what restop reads every tick
 *   -c         count the entries of each dump (walks the table nest of every
 *              message; off by default so that the baseline only reads)
 *   -n REPEAT  do the dumps REPEAT times in this one process (default 1)
 *
 * The receive buffer is restop's (64 KiB): the kernel sizes dump messages to
 * the largest read it has seen on the socket, capped near 32 KiB, so both
 * programs get the same messages. Prints one line per device and type of the
 * last round ("dump dev=0 type=mr messages=... bytes=... entries=... ms=..."),
 * with -s one "summary repeat=N messages=... bytes=... ms_per_call=..." line
 * (averages over the rounds), and a "total ... ms=..." line; exit status 1 on
 * any error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif
#define NLDEV(op) ((5 << 10) + (op))
#define CMD_GET 1
#define CMD_RES_GET 9
#define ATTR_DEV_INDEX 1
#define RECV_BUFFER (64 * 1024)
#define MAX_DEVICES 64

struct dump_type {
	const char *name;
	int op;
	int table; /* the attribute holding the entries */
};

/* restop's dump order (parents first) */
static const struct dump_type types[] = {
	{ "ctx", 22, 86 }, { "pd", 14, 46 }, { "cq", 12, 35 }, { "mr", 13, 40 },
	{ "srq", 23, 88 }, { "qp", 10, 19 }, { "cm_id", 11, 30 },
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

struct tally {
	unsigned long messages, bytes, entries;
	double ms;
};

static unsigned char buf[RECV_BUFFER];
static uint32_t seq;
static int count_entries;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int fail(const char *what)
{
	fprintf(stderr, "bare_dump: %s: %s\n", what, strerror(errno));
	return -1;
}

/* a dump request: header + optional DEV_INDEX attribute */
static int request(int fd, int type, int dev)
{
	struct {
		struct nlmsghdr h;
		struct nlattr a;
		uint32_t dev;
	} req;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = dev < 0 ? NLMSG_HDRLEN : sizeof(req);
	req.h.nlmsg_type = type;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = ++seq;
	req.a.nla_len = NLA_HDRLEN + sizeof(uint32_t);
	req.a.nla_type = ATTR_DEV_INDEX;
	req.dev = (uint32_t)dev;
	if (send(fd, &req, req.h.nlmsg_len, 0) < 0)
		return fail("send");
	return 0;
}

/* the children of the nest `table` among the message's attributes */
static unsigned long entries_of(const struct nlmsghdr *h, int table)
{
	const unsigned char *p = (const unsigned char *)h + NLMSG_HDRLEN;
	const unsigned char *end = (const unsigned char *)h + h->nlmsg_len;
	unsigned long n = 0;
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == table) {
			const unsigned char *q = p + NLA_HDRLEN, *qend = p + a->nla_len;
			while (q + NLA_HDRLEN <= qend) {
				const struct nlattr *e = (const struct nlattr *)q;
				if (e->nla_len < NLA_HDRLEN)
					break;
				n++;
				q += NLA_ALIGN(e->nla_len);
			}
		}
		p += NLA_ALIGN(a->nla_len);
	}
	return n;
}

/* the DEV_INDEX attribute of a GET reply, or -1 */
static int dev_index_of(const struct nlmsghdr *h)
{
	const unsigned char *p = (const unsigned char *)h + NLMSG_HDRLEN;
	const unsigned char *end = (const unsigned char *)h + h->nlmsg_len;
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == ATTR_DEV_INDEX && a->nla_len >= NLA_HDRLEN + 4) {
			uint32_t v;
			memcpy(&v, p + NLA_HDRLEN, sizeof(v));
			return (int)v;
		}
		p += NLA_ALIGN(a->nla_len);
	}
	return -1;
}

/* reads one dump to its NLMSG_DONE; devs (if given) collects DEV_INDEX values */
static int read_dump(int fd, int table, struct tally *t, int *devs, int *ndevs)
{
	for (;;) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			return fail("recv");
		}
		t->bytes += len;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				int err = 0;
				if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					memcpy(&err, NLMSG_DATA(h), sizeof(err));
				if (err) {
					errno = -err;
					return fail(h->nlmsg_type == NLMSG_DONE ? "dump" : "request");
				}
				return 0;
			}
			t->messages++;
			if (count_entries && table)
				t->entries += entries_of(h, table);
			if (devs && *ndevs < MAX_DEVICES) {
				int d = dev_index_of(h);
				if (d >= 0)
					devs[(*ndevs)++] = d;
			}
		}
	}
}

static int dump(int fd, int type, int dev, int table, struct tally *t)
{
	double t0 = now_ms();
	if (request(fd, type, dev) || read_dump(fd, table, t, NULL, NULL))
		return -1;
	t->ms += now_ms() - t0;
	return 0;
}

int main(int argc, char **argv)
{
	int opt, summary = 0, repeat = 1;
	while ((opt = getopt(argc, argv, "scn:")) != -1) {
		switch (opt) {
		case 's': summary = 1; break;
		case 'c': count_entries = 1; break;
		case 'n': repeat = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: bare_dump [-s] [-c] [-n REPEAT]\n");
			return 2;
		}
	}
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd < 0) {
		fail("socket");
		return 1;
	}
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fail("bind");
		return 1;
	}
	double t0 = now_ms();
	int devs[MAX_DEVICES], ndevs = 0;
	struct tally list = { 0 };
	if (request(fd, NLDEV(CMD_GET), -1) || read_dump(fd, 0, &list, devs, &ndevs))
		return 1;
	static struct tally tallies[MAX_DEVICES][NTYPES];
	struct tally sum = { 0 };
	for (int r = 0; r < repeat; r++) {
		memset(tallies, 0, sizeof(tallies));
		if (summary) {
			if (dump(fd, NLDEV(CMD_RES_GET), -1, 0, &sum))
				return 1;
			continue;
		}
		for (int d = 0; d < ndevs; d++)
			for (size_t i = 0; i < NTYPES; i++)
				if (dump(fd, NLDEV(types[i].op), devs[d], types[i].table, &tallies[d][i]))
					return 1;
	}
	for (int d = 0; !summary && d < ndevs; d++)
		for (size_t i = 0; i < NTYPES; i++) {
			struct tally *t = &tallies[d][i];
			printf("dump dev=%d type=%s messages=%lu bytes=%lu entries=%lu ms=%.3f\n", devs[d],
			       types[i].name, t->messages, t->bytes, t->entries, t->ms);
		}
	if (summary && repeat > 0)
		printf("summary repeat=%d messages=%lu bytes=%lu ms_per_call=%.3f\n", repeat,
		       sum.messages / repeat, sum.bytes / repeat, sum.ms / repeat);
	printf("total devices=%d repeat=%d ms=%.3f\n", ndevs, repeat, now_ms() - t0);
	return 0;
}
