/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The packetdrill shim: a shared object that packetdrill loads with
 * --so_filename and drives through struct packetdrill_interface
 * (packetdrill.h, declared again below: packetdrill is GPL-2.0 and is never
 * linked into ustack; the interface is a table of function pointers).
 *
 * What it puts under packetdrill:
 *  - one ustack stack on a port-less netif: netdev_send() wraps the
 *    script's IP packet in an Ethernet header and feeds it to the stack;
 *    what the stack transmits is unwrapped and queued for
 *    netdev_receive(). ARP requests are answered here (a peer MAC for
 *    every address), so no frame but IP reaches packetdrill;
 *  - virtual time: the stack's clock is the shim's, advanced by usleep()
 *    and while netdev_receive() waits, one 1 ms timer tick at a time, so a
 *    two-hour keepalive script runs in a second and every run of a script
 *    sends the same segments at the same times. gettimeofday() moves the
 *    clock by 1 us per call (packetdrill spins on it for the last 20 us of
 *    a wait);
 *  - blocking calls: every socket is non-blocking in ustack; a call on a
 *    blocking descriptor that would block waits on a condition variable
 *    (the thread sleeps, which is how packetdrill sees that a call
 *    blocks) until the thread that advances the clock or injects packets
 *    finds the socket ready (ust_sock_events()), then retries. The waiter
 *    completes at the virtual time it was woken, and that is the time its
 *    thread's next gettimeofday() reports (packetdrill's end time of the
 *    call). A blocking call on packetdrill's main thread advances the
 *    clock itself;
 *  - a real file descriptor per socket (an open /dev/null), since
 *    packetdrill closes every script descriptor with close(2) at the end;
 *  - the settings the script's sysctls give Linux (tcp_rmem, tcp_wmem,
 *    tcp_timestamps, tcp_sack, tcp_dsack, tcp_moderate_rcvbuf,
 *    tcp_slow_start_after_idle,
 *    tcp_window_scaling, tcp_syn_retries, tcp_synack_retries,
 *    tcp_syncookies, keepalive,
 *    fin_timeout, retries2, tw_reuse, rfc1337, congestion control...),
 *    read from /proc/sys of the namespace the script runs in when the
 *    first socket is created
 *    (packetdrill initialises the shim before the script's first shell
 *    command runs) and again at every socket(), so a script's sysctl
 *    command between connections takes effect as on Linux.
 *
 * --so_flags: space- or comma-separated key=value settings:
 *   local_ip=198.18.0.2  prefix=24  gateway_ip=198.18.0.1  mtu=1500
 *   ip6=1 (IPv6 on, link-local only: --ip_version=ipv4-mapped-ipv6)
 *   local_ip6=2001:2::2  prefix6=48  gateway_ip6=2001:2::1 (IPv6 on with
 *   that address: --ip_version=ipv6; packetdrill's prefix there is 48)
 *   verbose=1 (a line per frame on stderr)
 * The addresses must be those given to packetdrill (--local_ip,
 * --gateway_ip): packetdrill does not pass its options to the object.
 * With IPv6 on, the stack's addresses take no duplicate address detection
 * and it solicits no router (Linux does neither on packetdrill's tun0, a
 * NOARP device); its neighbour solicitations are answered here, as its
 * ARP requests are, and its other Neighbour Discovery and MLD messages
 * never reach packetdrill.
 *
 * Every call takes the shim's mutex: packetdrill calls from its main
 * thread and from its system-call thread.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <rte_arp.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "sock_private.h"
#include "stack_private.h"
#include "ust_netif.h"
#include "ust_socket.h"
#include "ust_stack.h"
#include "ust_tcp.h"

/* ---- packetdrill's interface (packetdrill.h), as an ABI ---- */
struct packetdrill_interface {
	void *userdata;
	void (*free)(void *userdata);
	int (*socket)(void *userdata, int domain, int type, int protocol);
	int (*bind)(void *userdata, int sockfd, const struct sockaddr *addr,
		    socklen_t addrlen);
	int (*listen)(void *userdata, int sockfd, int backlog);
	int (*accept)(void *userdata, int sockfd, struct sockaddr *addr,
		      socklen_t *addrlen);
	int (*connect)(void *userdata, int sockfd, const struct sockaddr *addr,
		       socklen_t addrlen);
	ssize_t (*read)(void *userdata, int fd, void *buf, size_t count);
	ssize_t (*readv)(void *userdata, int fd, const struct iovec *iov,
			 int iovcnt);
	ssize_t (*recv)(void *userdata, int sockfd, void *buf, size_t len,
			int flags);
	ssize_t (*recvfrom)(void *userdata, int sockfd, void *buf, size_t len,
			    int flags, struct sockaddr *src_addr,
			    socklen_t *addrlen);
	ssize_t (*recvmsg)(void *userdata, int sockfd, struct msghdr *msg,
			   int flags);
	ssize_t (*write)(void *userdata, int fd, const void *buf,
			 size_t count);
	ssize_t (*writev)(void *userdata, int fd, const struct iovec *iov,
			  int iovcnt);
	ssize_t (*send)(void *userdata, int sockfd, const void *buf,
			size_t len, int flags);
	ssize_t (*sendto)(void *userdata, int sockfd, const void *buf,
			  size_t len, int flags,
			  const struct sockaddr *dest_addr, socklen_t addrlen);
	ssize_t (*sendmsg)(void *userdata, int sockfd,
			   const struct msghdr *msg, int flags);
	int (*fcntl)(void *userdata, int fd, int cmd, ...);
	int (*ioctl)(void *userdata, int fd, unsigned long request, ...);
	int (*close)(void *userdata, int fd);
	int (*shutdown)(void *userdata, int sockfd, int how);
	int (*getsockopt)(void *userdata, int sockfd, int level, int optname,
			  void *optval, socklen_t *optlen);
	int (*setsockopt)(void *userdata, int sockfd, int level, int optname,
			  const void *optval, socklen_t optlen);
	int (*poll)(void *userdata, struct pollfd *fds, nfds_t nfds,
		    int timeout);
	int (*netdev_send)(void *userdata, const void *buf, size_t count);
	int (*netdev_receive)(void *userdata, void *buf, size_t *count,
			      long long *time_usecs);
	int (*usleep)(void *userdata, useconds_t usec);
	int (*gettimeofday)(void *userdata, struct timeval *tv,
			    struct timezone *tz);
	int (*epoll_create)(void *userdata, int size);
	int (*epoll_ctl)(void *userdata, int epfd, int op, int fd,
			 struct epoll_event *event);
	int (*epoll_wait)(void *userdata, int epfd, struct epoll_event *events,
			  int maxevents, int timeout);
	int (*pipe)(void *userdata, int pipefd[2]);
	int (*splice)(void *userdata, int fd_in, loff_t *off_in, int fd_out,
		      loff_t *off_out, size_t len, unsigned int flags);
};

void packetdrill_interface_init(const char *flags,
				struct packetdrill_interface *ifc);

/* ---- the shim's state ---- */

#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define VT_START_NS (1000ull * NS_PER_MS)  /* the stack's clock at start */
#define VT_EPOCH_S 1700000000ull           /* what gettimeofday adds */
#define FIFO_MAX 8192                      /* packets for packetdrill */
#define RX_MAX 512                         /* frames for the stack */
#define FD_MAX 1024
/* netdev_receive() gives up after this much virtual time with nothing
 * sent: longer than Linux's keepalive time (2 h) plus its probes */
#define RECV_WAIT_MAX_NS (3ull * 3600 * 1000 * NS_PER_MS)
#define BLOCK_WAIT_MAX_NS RECV_WAIT_MAX_NS

enum fd_kind { FD_NONE = 0, FD_SOCK, FD_EPOLL };

struct shim_fd {
	uint8_t kind;
	bool nonblock;
	bool inq;                /* TCP_INQ set: recvmsg() adds TCP_CM_INQ */
	int sd;                  /* ustack descriptor */
};

struct pkt {
	uint64_t t_ns;
	uint32_t len;
	uint8_t data[];
};

struct shim;

/* a call blocked on the system-call thread (one at a time: packetdrill
 * has one such thread) */
struct waiter {
	bool active;
	bool (*ready)(struct shim *sh, const void *arg);
	const void *arg;
	uint64_t deadline_ns;    /* wake then anyway (0: none) */
	uint64_t gen;            /* the main side's wake-ups ... */
	uint64_t seen;           /* ... and the last the waiter looked at */
};

struct shim {
	pthread_mutex_t mu;
	pthread_cond_t wake;     /* waiter: look again */
	pthread_cond_t ack;      /* main side: the waiter looked */
	pthread_t main_thread;
	struct waiter w;

	uint64_t now_ns;         /* virtual clock */
	struct ust_stack *stk;
	struct rte_mempool *mp;
	struct ust_netif_ops ops;

	/* configuration from --so_flags */
	rte_be32_t addr;
	rte_be32_t gateway;
	uint8_t prefix_len;
	uint16_t mtu;
	bool ip6;                /* IPv6 on */
	uint8_t addr6[16];       /* its global address (zero: none) */
	uint8_t gateway6[16];
	uint8_t prefix6;
	int verbose;

	struct rte_mbuf *rx[RX_MAX];
	unsigned int rx_n;

	struct pkt *fifo[FIFO_MAX];
	unsigned int fifo_head, fifo_n;
	uint64_t fifo_drops;

	int null_fd;
	struct shim_fd fds[FD_MAX];
};

/* the virtual time the calling thread's next gettimeofday() reports: the
 * completion time of the blocking call it just made */
static __thread uint64_t tl_end_ns;

static const struct rte_ether_addr our_mac = {{ 0x02, 0, 0, 0, 0x18, 0x02 }};
static const struct rte_ether_addr peer_mac = {{ 0x02, 0, 0, 0, 0x18, 0x01 }};

static void
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ust_pd_shim: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	fflush(stdout);   /* packetdrill's -v lines before ours */
	_exit(2);
}

static int
fail(int err)
{
	errno = err;
	return -1;
}

/* ---- the netif ---- */

static uint16_t
shim_rx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct shim *sh = ctx;
	uint16_t k = 0;

	while (k < n && k < sh->rx_n) {
		pkts[k] = sh->rx[k];
		k++;
	}
	memmove(sh->rx, sh->rx + k, (sh->rx_n - k) * sizeof(sh->rx[0]));
	sh->rx_n -= k;
	return k;
}

static void
rx_push(struct shim *sh, struct rte_mbuf *m)
{
	if (sh->rx_n == RX_MAX) {
		rte_pktmbuf_free(m);
		fprintf(stderr, "ust_pd_shim: RX queue full, frame dropped\n");
		return;
	}
	sh->rx[sh->rx_n++] = m;
}

/* an ARP request from the stack: the peer answers for every address */
static void
arp_answer(struct shim *sh, const struct rte_arp_hdr *req)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(sh->mp);
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *ah;

	if (m == NULL)
		return;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m,
		sizeof(*eh) + sizeof(*ah));
	ah = (struct rte_arp_hdr *)(eh + 1);
	rte_ether_addr_copy(&our_mac, &eh->dst_addr);
	rte_ether_addr_copy(&peer_mac, &eh->src_addr);
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	ah->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	ah->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ah->arp_hlen = RTE_ETHER_ADDR_LEN;
	ah->arp_plen = 4;
	ah->arp_opcode = RTE_BE16(RTE_ARP_OP_REPLY);
	rte_ether_addr_copy(&peer_mac, &ah->arp_data.arp_sha);
	ah->arp_data.arp_sip = req->arp_data.arp_tip;
	rte_ether_addr_copy(&req->arp_data.arp_sha, &ah->arp_data.arp_tha);
	ah->arp_data.arp_tip = req->arp_data.arp_sip;
	rx_push(sh, m);
}

/* A neighbour solicitation from the stack (@ip, @len bytes of IPv6 and
 * ICMPv6): the peer answers for every target, with a solicited, override
 * advertisement carrying peer_mac (RFC 4861 4.4, 7.2.4) */
static void
nd_answer(struct shim *sh, const struct rte_ipv6_hdr *ns, uint32_t len)
{
	const uint8_t *icmp = (const uint8_t *)(ns + 1);
	const uint32_t na_len = 8 + 16 + 8;  /* header, target, option */
	struct rte_mbuf *m;
	struct rte_ether_hdr *eh;
	struct rte_ipv6_hdr *ip;
	uint8_t *na;

	if (len < sizeof(*ns) + 8 + 16)
		return;
	m = rte_pktmbuf_alloc(sh->mp);
	if (m == NULL)
		return;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m,
		sizeof(*eh) + sizeof(*ip) + na_len);
	ip = (struct rte_ipv6_hdr *)(eh + 1);
	na = (uint8_t *)(ip + 1);
	rte_ether_addr_copy(&our_mac, &eh->dst_addr);
	rte_ether_addr_copy(&peer_mac, &eh->src_addr);
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(na_len);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255;
	memcpy(ip->src_addr, icmp + 8, 16);     /* the target */
	memcpy(ip->dst_addr, ns->src_addr, 16);
	memset(na, 0, na_len);
	na[0] = 136;                            /* neighbour advertisement */
	na[4] = 0x60;                           /* solicited, override */
	memcpy(na + 8, icmp + 8, 16);
	na[24] = 2;                             /* target link-layer address */
	na[25] = 1;
	memcpy(na + 26, peer_mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	*(uint16_t *)(na + 2) = rte_ipv6_udptcp_cksum(ip, na);
	rx_push(sh, m);
}

static void
fifo_push(struct shim *sh, const uint8_t *ip, uint32_t len)
{
	struct pkt *p;

	if (sh->fifo_n == FIFO_MAX) {
		sh->fifo_drops++;
		fprintf(stderr, "ust_pd_shim: %u packets not read by "
			"packetdrill; dropping the newest\n", FIFO_MAX);
		return;
	}
	p = malloc(sizeof(*p) + len);
	if (p == NULL)
		die("out of memory");
	p->t_ns = sh->now_ns;
	p->len = len;
	memcpy(p->data, ip, len);
	sh->fifo[(sh->fifo_head + sh->fifo_n) % FIFO_MAX] = p;
	sh->fifo_n++;
}

static uint16_t
shim_tx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct shim *sh = ctx;
	uint8_t buf[RTE_MBUF_DEFAULT_BUF_SIZE * 48];
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t len = rte_pktmbuf_pkt_len(m);
		const struct rte_ether_hdr *eh;

		if (len > sizeof(buf) || len < sizeof(*eh)) {
			fprintf(stderr, "ust_pd_shim: frame of %u bytes "
				"ignored\n", len);
			rte_pktmbuf_free(m);
			continue;
		}
		eh = rte_pktmbuf_read(m, 0, len, buf);
		if (eh != (const void *)buf)
			memcpy(buf, eh, len);
		eh = (const struct rte_ether_hdr *)buf;
		if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP) &&
		    len >= sizeof(*eh) + sizeof(struct rte_arp_hdr)) {
			const struct rte_arp_hdr *ah =
				(const struct rte_arp_hdr *)(eh + 1);

			if (ah->arp_opcode == RTE_BE16(RTE_ARP_OP_REQUEST))
				arp_answer(sh, ah);
		} else if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
			   len >= sizeof(*eh) + sizeof(struct rte_ipv4_hdr)) {
			const struct rte_ipv4_hdr *ip =
				(const struct rte_ipv4_hdr *)(eh + 1);
			uint32_t tot = rte_be_to_cpu_16(ip->total_length);

			if (tot > len - sizeof(*eh))
				tot = len - (uint32_t)sizeof(*eh);
			if (sh->verbose)
				fprintf(stderr, "ust_pd_shim: %.6f out %u "
					"bytes\n", sh->now_ns / 1e9, tot);
			fifo_push(sh, (const uint8_t *)ip, tot);
		} else if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
			   len >= sizeof(*eh) + sizeof(struct rte_ipv6_hdr)) {
			const struct rte_ipv6_hdr *ip =
				(const struct rte_ipv6_hdr *)(eh + 1);
			const uint8_t *l4 = (const uint8_t *)(ip + 1);
			uint32_t tot = sizeof(*ip) +
				rte_be_to_cpu_16(ip->payload_len);

			if (tot > len - sizeof(*eh))
				tot = len - (uint32_t)sizeof(*eh);
			if (ip->proto == IPPROTO_HOPOPTS) {
				/* MLD reports (with a router alert): for
				 * the link, not for the script */
			} else if (ip->proto == IPPROTO_ICMPV6 &&
				   tot >= sizeof(*ip) + 1 &&
				   l4[0] >= 133 && l4[0] <= 137) {
				/* Neighbour Discovery (RFC 4861 4) */
				if (l4[0] == 135)
					nd_answer(sh, ip, tot);
			} else {
				if (sh->verbose)
					fprintf(stderr, "ust_pd_shim: %.6f "
						"out %u bytes\n",
						sh->now_ns / 1e9, tot);
				fifo_push(sh, (const uint8_t *)ip, tot);
			}
		}
		rte_pktmbuf_free(m);
	}
	return n;
}

/* ---- settings from the namespace's sysctls ---- */

static int
sysctl_read(const char *name, unsigned long *v, int n)
{
	char path[128], line[256], *p = line, *end;
	FILE *f;
	int k;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/%s", name);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fgets(line, sizeof(line), f) == NULL) {
		fclose(f);
		return 0;
	}
	fclose(f);
	for (k = 0; k < n; k++) {
		v[k] = strtoul(p, &end, 0);
		if (end == p)
			break;
		p = end;
	}
	return k;
}

static void
sysctl_u32(const char *name, uint32_t *dst, uint32_t scale)
{
	unsigned long v;

	if (sysctl_read(name, &v, 1) == 1)
		*dst = (uint32_t)(v * scale);
}

static void
sysctl_u8(const char *name, uint8_t *dst)
{
	unsigned long v;

	if (sysctl_read(name, &v, 1) == 1)
		*dst = v != 0;
}

static void
tcp_conf_from_sysctls(struct ust_tcp_conf *t)
{
	unsigned long v[3];
	char cc[32];
	FILE *f;

	if (sysctl_read("tcp_rmem", v, 3) == 3) {
		t->rmem_default = (uint32_t)v[1];
		t->rmem_max = (uint32_t)v[2];
	}
	if (sysctl_read("tcp_wmem", v, 3) == 3) {
		t->wmem_default = (uint32_t)v[1];
		t->wmem_max = (uint32_t)v[2];
	}
	sysctl_u8("tcp_timestamps", &t->timestamps);
	sysctl_u8("tcp_sack", &t->sack);
	sysctl_u8("tcp_dsack", &t->dsack);
	sysctl_u8("tcp_moderate_rcvbuf", &t->moderate_rcvbuf);
	sysctl_u8("tcp_slow_start_after_idle", &t->slow_start_after_idle);
	sysctl_u8("tcp_window_scaling", &t->window_scaling);
	/* Linux's 2 (its default) is loopback only: off for the script's
	 * remote peer */
	if (sysctl_read("tcp_tw_reuse", v, 1) == 1)
		t->tw_reuse = v[0] == 1;
	sysctl_u8("tcp_rfc1337", &t->rfc1337);
	sysctl_u32("tcp_syn_retries", &t->syn_retries, 1);
	sysctl_u32("tcp_synack_retries", &t->synack_retries, 1);
	sysctl_u32("tcp_syncookies", &t->syncookies, 1);
	sysctl_u32("tcp_retries2", &t->retries2, 1);
	sysctl_u32("tcp_fin_timeout", &t->fin_timeout_ms, 1000);
	sysctl_u32("tcp_keepalive_time", &t->keepalive_time_ms, 1000);
	sysctl_u32("tcp_keepalive_intvl", &t->keepalive_intvl_ms, 1000);
	sysctl_u32("tcp_keepalive_probes", &t->keepalive_probes, 1);
	sysctl_u32("tcp_max_syn_backlog", &t->max_syn_backlog, 1);
	sysctl_u32("tcp_min_tso_segs", &t->min_tso_segs, 1);
	sysctl_u32("tcp_challenge_ack_limit", &t->challenge_ack_limit, 1);
	sysctl_u32("tcp_invalid_ratelimit", &t->invalid_ratelimit_ms, 1);
	f = fopen("/proc/sys/net/ipv4/tcp_congestion_control", "r");
	if (f != NULL) {
		if (fscanf(f, "%31s", cc) == 1) {
			if (strcmp(cc, "reno") == 0)
				snprintf(t->congestion, sizeof(t->congestion),
					 "newreno");
			else if (strcmp(cc, "cubic") == 0)
				snprintf(t->congestion, sizeof(t->congestion),
					 "cubic");
			/* anything else (bbr...): the stack's default */
		}
		fclose(f);
	}
	/* Linux's delayed ACK: 40 ms at least (TCP_DELACK_MIN, TCP_ATO_MIN);
	 * ustack's default is 1 ms */
	t->delack_ms = 40;
}

/* ---- the clock and the stack ---- */

static void
collect(struct shim *sh)
{
	int rounds;

	/* ARP answers go back in at once; each round may send more */
	for (rounds = 0; rounds < 8; rounds++) {
		ust_stack_flush(sh->stk);
		if (sh->rx_n == 0)
			break;
		ust_stack_poll(sh->stk, sh->now_ns);
	}
	ust_stack_flush(sh->stk);
}

static void
stack_create(struct shim *sh)
{
	struct ust_stack_conf c;

	ust_stack_conf_defaults(&c);
	c.name = "pd";
	c.netif.ops = &sh->ops;
	c.netif.ctx = sh;
	c.netif.mac = our_mac;
	c.netif.mtu = sh->mtu;
	c.netif.flags = 0;
	c.netif.port_id = UINT16_MAX;
	c.pool = sh->mp;
	c.addr = sh->addr;
	c.prefix_len = sh->prefix_len;
	c.gateway = sh->gateway;
	c.now_ns = sh->now_ns;
	if (sh->ip6) {
		c.ip6.enable = true;
		memcpy(c.ip6.addr, sh->addr6, 16);
		c.ip6.prefix_len = sh->prefix6;
		memcpy(c.ip6.gateway, sh->gateway6, 16);
		c.ip6.dad_transmits = 0;
		c.ip6.accept_ra = false;
	}
	tcp_conf_from_sysctls(&c.tcp);
	sh->stk = ust_stack_create(&c);
	if (sh->stk == NULL)
		die("ust_stack_create failed");
	if (sh->gateway != 0)
		ust_stack_arp_add_static(sh->stk, sh->gateway, &peer_mac);
}

static bool
waiter_due(struct shim *sh)
{
	struct waiter *w = &sh->w;

	if (!w->active)
		return false;
	if (w->deadline_ns != 0 && sh->now_ns >= w->deadline_ns)
		return true;
	return w->ready(sh, w->arg);
}

/* The stack changed (a packet in, the clock moved): a waiting call that
 * can now complete does so before the caller goes on, at this virtual
 * time. Called with the mutex held, never by the waiter itself. */
static void
kick(struct shim *sh)
{
	struct waiter *w = &sh->w;

	if (!waiter_due(sh))
		return;
	w->gen++;
	pthread_cond_broadcast(&sh->wake);
	while (w->active && w->seen != w->gen)
		pthread_cond_wait(&sh->ack, &sh->mu);
}

/* Move the clock to @t_ns one timer tick at a time, running the stack. */
static void
advance(struct shim *sh, uint64_t t_ns)
{
	while (sh->now_ns < t_ns) {
		uint64_t next = (sh->now_ns / NS_PER_MS + 1) * NS_PER_MS;

		if (next > t_ns)
			next = t_ns;
		sh->now_ns = next;
		if (sh->stk != NULL) {
			ust_stack_poll(sh->stk, sh->now_ns);
			collect(sh);
			if (pthread_equal(pthread_self(), sh->main_thread) ||
			    !sh->w.active)
				kick(sh);
		}
	}
}

static struct shim *
enter(void *ud)
{
	struct shim *sh = ud;

	pthread_mutex_lock(&sh->mu);
	if (sh->stk == NULL)
		stack_create(sh);
	ust_stack_poll(sh->stk, sh->now_ns);
	return sh;
}

static void
leave(struct shim *sh)
{
	collect(sh);
	pthread_mutex_unlock(&sh->mu);
}

/* Block until @ready or @deadline_ns (0: none). On packetdrill's main
 * thread the clock is advanced here; elsewhere the main thread advances
 * it and wakes us. Returns false when the wait gave up. */
static bool
block_until(struct shim *sh, bool (*ready)(struct shim *, const void *),
	    const void *arg, uint64_t deadline_ns)
{
	struct waiter *w = &sh->w;
	uint64_t limit = sh->now_ns + BLOCK_WAIT_MAX_NS;

	collect(sh);
	if (pthread_equal(pthread_self(), sh->main_thread)) {
		while (!ready(sh, arg)) {
			if (deadline_ns != 0 && sh->now_ns >= deadline_ns)
				return true;
			if (sh->now_ns >= limit)
				return false;
			advance(sh, sh->now_ns + NS_PER_MS);
		}
		return true;
	}
	if (w->active)
		die("two blocking calls at once");
	w->active = true;
	w->ready = ready;
	w->arg = arg;
	w->deadline_ns = deadline_ns;
	while (!waiter_due(sh)) {
		w->seen = w->gen;
		pthread_cond_broadcast(&sh->ack);
		pthread_cond_wait(&sh->wake, &sh->mu);
	}
	w->active = false;
	w->seen = w->gen;
	pthread_cond_broadcast(&sh->ack);
	tl_end_ns = sh->now_ns;
	return true;
}

/* ---- descriptors ---- */

static struct shim_fd *
fd_get(struct shim *sh, int fd, uint8_t kind)
{
	if (fd < 0 || fd >= FD_MAX || sh->fds[fd].kind == FD_NONE)
		return NULL;
	if (kind != FD_NONE && sh->fds[fd].kind != kind)
		return NULL;
	return &sh->fds[fd];
}

static int
fd_new(struct shim *sh, uint8_t kind, int sd, bool nonblock)
{
	int fd = dup(sh->null_fd);

	if (fd < 0)
		return -errno;
	if (fd >= FD_MAX) {
		close(fd);
		return -EMFILE;
	}
	sh->fds[fd].kind = kind;
	sh->fds[fd].sd = sd;
	sh->fds[fd].nonblock = nonblock;
	return fd;
}

struct ev_arg {
	int sd;
	uint32_t mask;
};

static bool
sock_ready(struct shim *sh, const void *arg)
{
	const struct ev_arg *a = arg;
	struct ust_sock *s = ust_sd_lookup(sh->stk, a->sd);

	if (s == NULL)
		return true;
	return (ust_sock_events(s) & a->mask) != 0;
}

#define EV_ANY_ERR (UST_EPOLLERR | UST_EPOLLHUP)

static bool
wait_sock(struct shim *sh, int sd, uint32_t mask)
{
	struct ev_arg a = { .sd = sd, .mask = mask | EV_ANY_ERR };

	return block_until(sh, sock_ready, &a, 0);
}

/* ---- the calls ---- */

static int
pd_socket(void *ud, int domain, int type, int protocol)
{
	struct shim *sh = enter(ud);
	bool nonblock = (type & SOCK_NONBLOCK) != 0;
	int sd, fd;

	tcp_conf_from_sysctls((struct ust_tcp_conf *)&sh->stk->conf.tcp);
	sd = ust_socket(sh->stk, domain, type, protocol);
	if (sd < 0) {
		leave(sh);
		return fail(-sd);
	}
	fd = fd_new(sh, FD_SOCK, sd, nonblock);
	if (fd < 0) {
		ust_close(sh->stk, sd);
		leave(sh);
		return fail(-fd);
	}
	leave(sh);
	return fd;
}

#define SOCK_OR_FAIL(sh, f, fd)                                      \
	do {                                                         \
		f = fd_get(sh, fd, FD_NONE);                         \
		if (f == NULL) {                                     \
			leave(sh);                                   \
			return fail(EBADF);                          \
		}                                                    \
		if (f->kind != FD_SOCK) {                            \
			leave(sh);                                   \
			return fail(ENOTSOCK);                       \
		}                                                    \
	} while (0)

static int
ret_int(struct shim *sh, int rc)
{
	leave(sh);
	return rc < 0 ? fail(-rc) : rc;
}

static int
pd_bind(void *ud, int fd, const struct sockaddr *addr, socklen_t len)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f;

	SOCK_OR_FAIL(sh, f, fd);
	return ret_int(sh, ust_bind(sh->stk, f->sd, addr, len));
}

static int
pd_listen(void *ud, int fd, int backlog)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f;

	SOCK_OR_FAIL(sh, f, fd);
	return ret_int(sh, ust_listen(sh->stk, f->sd, backlog));
}

static int
pd_accept(void *ud, int fd, struct sockaddr *addr, socklen_t *len)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f;
	int sd, nfd;

	SOCK_OR_FAIL(sh, f, fd);
	for (;;) {
		sd = ust_accept(sh->stk, f->sd, addr, len);
		if (sd != -EAGAIN || f->nonblock)
			break;
		if (!wait_sock(sh, f->sd, UST_EPOLLIN))
			break;
	}
	if (sd < 0)
		return ret_int(sh, sd);
	nfd = fd_new(sh, FD_SOCK, sd, false);
	if (nfd < 0)
		ust_close(sh->stk, sd);
	return ret_int(sh, nfd);
}

static int
sock_error(struct shim *sh, int sd)
{
	int err = 0;
	socklen_t l = sizeof(err);

	if (ust_getsockopt(sh->stk, sd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
		return 0;
	return err;
}

static int
pd_connect(void *ud, int fd, const struct sockaddr *addr, socklen_t len)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f;
	int rc, err;

	SOCK_OR_FAIL(sh, f, fd);
	rc = ust_connect(sh->stk, f->sd, addr, len);
	if (rc != -EINPROGRESS || f->nonblock)
		return ret_int(sh, rc);
	/* a blocking connect: until connected or failed */
	if (!wait_sock(sh, f->sd, UST_EPOLLOUT))
		return ret_int(sh, -ETIMEDOUT);
	err = sock_error(sh, f->sd);
	return ret_int(sh, err != 0 ? -err : 0);
}

static ssize_t
do_recv(struct shim *sh, struct shim_fd *f, void *buf, size_t len, int flags,
	struct sockaddr *from, socklen_t *fromlen)
{
	bool nonblock = f->nonblock || (flags & MSG_DONTWAIT);
	ssize_t n;

	for (;;) {
		n = ust_recvfrom(sh->stk, f->sd, buf, len,
				 flags & ~MSG_DONTWAIT, from, fromlen);
		if (n != -EAGAIN || nonblock)
			break;
		if (!wait_sock(sh, f->sd, UST_EPOLLIN | UST_EPOLLRDHUP))
			break;
	}
	return n;
}

static ssize_t
ret_ssize(struct shim *sh, ssize_t n)
{
	leave(sh);
	if (n < 0) {
		errno = (int)-n;
		return -1;
	}
	return n;
}

static ssize_t
pd_recvfrom(void *ud, int fd, void *buf, size_t len, int flags,
	    struct sockaddr *from, socklen_t *fromlen)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f;

	SOCK_OR_FAIL(sh, f, fd);
	return ret_ssize(sh, do_recv(sh, f, buf, len, flags, from, fromlen));
}

static ssize_t
pd_recv(void *ud, int fd, void *buf, size_t len, int flags)
{
	return pd_recvfrom(ud, fd, buf, len, flags, NULL, NULL);
}

static ssize_t
pd_read(void *ud, int fd, void *buf, size_t len)
{
	return pd_recvfrom(ud, fd, buf, len, 0, NULL, NULL);
}

/* scatter @n bytes of @buf over @iov */
static void
iov_scatter(const struct iovec *iov, int iovcnt, const uint8_t *buf,
	    size_t n)
{
	int i;

	for (i = 0; i < iovcnt && n > 0; i++) {
		size_t k = iov[i].iov_len < n ? iov[i].iov_len : n;

		memcpy(iov[i].iov_base, buf, k);
		buf += k;
		n -= k;
	}
}

static size_t
iov_total(const struct iovec *iov, int iovcnt)
{
	size_t t = 0;
	int i;

	for (i = 0; i < iovcnt; i++)
		t += iov[i].iov_len;
	return t;
}

static uint8_t *
iov_gather(const struct iovec *iov, int iovcnt, size_t *len)
{
	size_t t = iov_total(iov, iovcnt), off = 0;
	uint8_t *buf = malloc(t > 0 ? t : 1);
	int i;

	if (buf == NULL)
		return NULL;
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_base != NULL)
			memcpy(buf + off, iov[i].iov_base, iov[i].iov_len);
		else
			memset(buf + off, 0, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	*len = t;
	return buf;
}

/* Bytes waiting to be read (negative errno on error); @hint: Linux's
 * tcp_inq_hint(), which counts the peer's FIN as one byte once the data
 * before it is read, so that a reader knows to read once more for the EOF. */
static int
tcp_inq(struct shim *sh, int sd, bool hint)
{
	struct ust_tcp_info ti;
	socklen_t l = sizeof(ti);
	int rc;

	rc = ust_getsockopt(sh->stk, sd, UST_SOL_USTACK, UST_TCP_INFO, &ti, &l);
	if (rc < 0)
		return rc;
	if (ti.state == UST_TCP_LISTEN)
		return -EINVAL;
	if (hint && ti.rcv_buffered == 0 &&
	    (ti.state == UST_TCP_CLOSE_WAIT || ti.state == UST_TCP_LAST_ACK ||
	     ti.state == UST_TCP_CLOSING || ti.state == UST_TCP_TIME_WAIT ||
	     ti.state == UST_TCP_CLOSED))
		return 1;
	return (int)ti.rcv_buffered;
}

static ssize_t
pd_recvmsg(void *ud, int fd, struct msghdr *msg, int flags)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f;
	size_t t;
	uint8_t *buf;
	ssize_t n;

	SOCK_OR_FAIL(sh, f, fd);
	t = iov_total(msg->msg_iov, (int)msg->msg_iovlen);
	buf = malloc(t > 0 ? t : 1);
	if (buf == NULL)
		return ret_ssize(sh, -ENOMEM);
	n = do_recv(sh, f, buf, t, flags, msg->msg_name,
		    msg->msg_name != NULL ? &msg->msg_namelen : NULL);
	if (n > 0)
		iov_scatter(msg->msg_iov, (int)msg->msg_iovlen, buf,
			    (size_t)n);
	free(buf);
	msg->msg_flags = 0;
	if (n >= 0 && f->inq && msg->msg_control != NULL &&
	    msg->msg_controllen >= CMSG_SPACE(sizeof(int))) {
		/* TCP_CM_INQ, as Linux's tcp_recvmsg() adds it */
		struct cmsghdr *c = CMSG_FIRSTHDR(msg);
		int inq = tcp_inq(sh, f->sd, true);

		c->cmsg_level = SOL_TCP;
		c->cmsg_type = TCP_CM_INQ;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &inq, sizeof(inq));
		msg->msg_controllen = CMSG_SPACE(sizeof(int));
	} else {
		msg->msg_controllen = 0;
	}
	return ret_ssize(sh, n);
}

static ssize_t
pd_readv(void *ud, int fd, const struct iovec *iov, int iovcnt)
{
	struct msghdr msg;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = (struct iovec *)(uintptr_t)iov;
	msg.msg_iovlen = (size_t)iovcnt;
	return pd_recvmsg(ud, fd, &msg, 0);
}

/* A send on a blocking socket queues everything before it returns, as
 * Linux's does (unless an error comes first); a non-blocking one what
 * fits. @buf NULL: zeros (packetdrill's "..." payloads). */
static ssize_t
do_send(struct shim *sh, struct shim_fd *f, const void *buf, size_t len,
	int flags, const struct sockaddr *to, socklen_t tolen)
{
	bool nonblock = f->nonblock || (flags & MSG_DONTWAIT);
	size_t done = 0;
	ssize_t n;

	/* a NULL buffer gets the stack's -EFAULT, as the kernel's */
	for (;;) {
		n = ust_sendto(sh->stk, f->sd, (const uint8_t *)buf + done,
			       len - done, flags & ~MSG_DONTWAIT, to, tolen);
		if (n > 0)
			done += (size_t)n;
		if (n >= 0 && (done == len || nonblock))
			break;
		if (n < 0 && (n != -EAGAIN || nonblock))
			break;
		collect(sh);
		if (!wait_sock(sh, f->sd, UST_EPOLLOUT))
			break;
	}
	if (done > 0)
		return (ssize_t)done;
	return n;
}

static ssize_t
pd_sendto(void *ud, int fd, const void *buf, size_t len, int flags,
	  const struct sockaddr *to, socklen_t tolen)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f;

	SOCK_OR_FAIL(sh, f, fd);
	return ret_ssize(sh, do_send(sh, f, buf, len, flags, to, tolen));
}

static ssize_t
pd_send(void *ud, int fd, const void *buf, size_t len, int flags)
{
	return pd_sendto(ud, fd, buf, len, flags, NULL, 0);
}

static ssize_t
pd_write(void *ud, int fd, const void *buf, size_t len)
{
	return pd_sendto(ud, fd, buf, len, 0, NULL, 0);
}

static ssize_t
pd_sendmsg(void *ud, int fd, const struct msghdr *msg, int flags)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f;
	uint8_t *buf;
	size_t len;
	ssize_t n;

	SOCK_OR_FAIL(sh, f, fd);
	buf = iov_gather(msg->msg_iov, (int)msg->msg_iovlen, &len);
	if (buf == NULL)
		return ret_ssize(sh, -ENOMEM);
	n = do_send(sh, f, buf, len, flags, msg->msg_name, msg->msg_namelen);
	free(buf);
	return ret_ssize(sh, n);
}

static ssize_t
pd_writev(void *ud, int fd, const struct iovec *iov, int iovcnt)
{
	struct msghdr msg;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = (struct iovec *)(uintptr_t)iov;
	msg.msg_iovlen = (size_t)iovcnt;
	return pd_sendmsg(ud, fd, &msg, 0);
}

static int
pd_fcntl(void *ud, int fd, int cmd, ...)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f = fd_get(sh, fd, FD_NONE);
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (f == NULL)
		return ret_int(sh, -EBADF);
	switch (cmd) {
	case F_GETFL:
		return ret_int(sh, O_RDWR | (f->nonblock ? O_NONBLOCK : 0));
	case F_SETFL:
		f->nonblock = (arg & O_NONBLOCK) != 0;
		return ret_int(sh, 0);
	case F_GETFD:
	case F_SETFD:
		return ret_int(sh, 0);
	default:
		return ret_int(sh, -EINVAL);
	}
}

static int
pd_ioctl(void *ud, int fd, unsigned long req, ...)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f;
	va_list ap;
	int *arg, rc;

	va_start(ap, req);
	arg = va_arg(ap, int *);
	va_end(ap);
	SOCK_OR_FAIL(sh, f, fd);
	switch (req) {
	case FIONBIO:
		f->nonblock = *arg != 0;
		return ret_int(sh, 0);
	case SIOCINQ:  /* FIONREAD: the bytes a read would return */
		rc = tcp_inq(sh, f->sd, false);
		if (rc >= 0) {
			*arg = rc;
			rc = 0;
		}
		return ret_int(sh, rc);
	default:
		return ret_int(sh, -ENOTTY);
	}
}

static int
pd_close(void *ud, int fd)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f = fd_get(sh, fd, FD_NONE);
	int rc;

	if (f == NULL)
		return ret_int(sh, -EBADF);
	rc = ust_close(sh->stk, f->sd);
	f->kind = FD_NONE;
	close(fd);
	return ret_int(sh, rc);
}

static int
pd_shutdown(void *ud, int fd, int how)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f;

	SOCK_OR_FAIL(sh, f, fd);
	return ret_int(sh, ust_shutdown(sh->stk, f->sd, how));
}

/* SO_MEMINFO in Linux's layout (u32[SK_MEMINFO_VARS], linux/sock_diag.h),
 * from the socket's accounting (UST_SO_MEMINFO). */
static int
sk_meminfo(struct shim *sh, int sd, void *val, socklen_t *len)
{
	enum { RMEM_ALLOC, RCVBUF, WMEM_ALLOC, SNDBUF, FWD_ALLOC, WMEM_QUEUED,
	       OPTMEM, BACKLOG, DROPS, N_VARS };
	struct ust_sock_meminfo mi;
	socklen_t mlen = sizeof(mi);
	uint32_t v[N_VARS] = { 0 };
	int rc;

	rc = ust_getsockopt(sh->stk, sd, UST_SOL_USTACK, UST_SO_MEMINFO, &mi,
			    &mlen);
	if (rc < 0)
		return rc;
	v[RMEM_ALLOC] = mi.rmem_alloc;
	v[RCVBUF] = mi.rcvbuf;
	v[SNDBUF] = mi.sndbuf;
	v[FWD_ALLOC] = mi.forward_alloc > 0 ? (uint32_t)mi.forward_alloc : 0;
	v[WMEM_QUEUED] = mi.wmem_queued;
	if (*len > sizeof(v))
		*len = sizeof(v);
	memcpy(val, v, *len);
	return 0;
}

static int
pd_getsockopt(void *ud, int fd, int level, int name, void *val,
	      socklen_t *len)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f;

	SOCK_OR_FAIL(sh, f, fd);
	if (level == SOL_TCP && name == TCP_CC_INFO) {
		/* Linux answers with the module's get_info(): cubic and reno
		 * have none, so the answer is empty (packetdrill's code
		 * events ask for it on every socket) */
		*len = 0;
		return ret_int(sh, 0);
	}
	if (level == SOL_SOCKET && name == SO_MEMINFO)
		return ret_int(sh, sk_meminfo(sh, f->sd, val, len));
	return ret_int(sh, ust_getsockopt(sh->stk, f->sd, level, name, val,
					  len));
}

static int
pd_setsockopt(void *ud, int fd, int level, int name, const void *val,
	      socklen_t len)
{
	struct shim *sh = enter(ud);
	struct shim_fd *f;
	int rc;

	SOCK_OR_FAIL(sh, f, fd);
	rc = ust_setsockopt(sh->stk, f->sd, level, name, val, len);
	if (rc == 0 && level == SOL_TCP && name == TCP_INQ &&
	    len >= sizeof(int))
		f->inq = *(const int *)val != 0;
	return ret_int(sh, rc);
}

/* poll(2) and epoll_wait(2) over ustack's readiness */

struct poll_arg {
	struct pollfd *fds;
	nfds_t n;
	int ready;
};

static uint32_t
poll_to_ust(short ev)
{
	uint32_t m = 0;

	if (ev & POLLIN)
		m |= UST_EPOLLIN;
	if (ev & POLLOUT)
		m |= UST_EPOLLOUT;
	if (ev & POLLRDHUP)
		m |= UST_EPOLLRDHUP;
	return m | UST_EPOLLERR | UST_EPOLLHUP;
}

static short
ust_to_poll(uint32_t m)
{
	short ev = 0;

	if (m & UST_EPOLLIN)
		ev |= POLLIN;
	if (m & UST_EPOLLOUT)
		ev |= POLLOUT;
	if (m & UST_EPOLLRDHUP)
		ev |= POLLRDHUP;
	if (m & UST_EPOLLERR)
		ev |= POLLERR;
	if (m & UST_EPOLLHUP)
		ev |= POLLHUP;
	return ev;
}

static int
poll_scan(struct shim *sh, struct pollfd *fds, nfds_t n)
{
	int ready = 0;
	nfds_t i;

	for (i = 0; i < n; i++) {
		struct shim_fd *f = fd_get(sh, fds[i].fd, FD_SOCK);
		struct ust_sock *s;

		fds[i].revents = 0;
		if (fds[i].fd < 0)
			continue;
		if (f == NULL ||
		    (s = ust_sd_lookup(sh->stk, f->sd)) == NULL) {
			fds[i].revents = POLLNVAL;
		} else {
			fds[i].revents = ust_to_poll(ust_sock_events(s) &
						     poll_to_ust(fds[i].events));
		}
		if (fds[i].revents != 0)
			ready++;
	}
	return ready;
}

static bool
poll_ready(struct shim *sh, const void *arg)
{
	const struct poll_arg *a = arg;

	return poll_scan(sh, a->fds, a->n) > 0;
}

static int
pd_poll(void *ud, struct pollfd *fds, nfds_t n, int timeout)
{
	struct shim *sh = enter(ud);
	struct poll_arg a = { .fds = fds, .n = n };
	int ready = poll_scan(sh, fds, n);

	if (ready == 0 && timeout != 0) {
		uint64_t dl = timeout < 0 ? 0 :
			sh->now_ns + (uint64_t)timeout * NS_PER_MS;

		block_until(sh, poll_ready, &a, dl);
		ready = poll_scan(sh, fds, n);
	}
	return ret_int(sh, ready);
}

static int
pd_epoll_create(void *ud, int size)
{
	struct shim *sh = enter(ud);
	int epd, fd;

	if (size <= 0)
		return ret_int(sh, -EINVAL);
	epd = ust_epoll_create(sh->stk);
	if (epd < 0)
		return ret_int(sh, epd);
	fd = fd_new(sh, FD_EPOLL, epd, false);
	if (fd < 0)
		ust_close(sh->stk, epd);
	return ret_int(sh, fd);
}

static int
pd_epoll_ctl(void *ud, int epfd, int op, int fd, struct epoll_event *ev)
{
	struct shim *sh = enter(ud);
	struct shim_fd *e = fd_get(sh, epfd, FD_EPOLL);
	struct shim_fd *f = fd_get(sh, fd, FD_SOCK);
	struct ust_epoll_event uev = { 0 };
	int uop;

	if (e == NULL || f == NULL)
		return ret_int(sh, -EBADF);
	switch (op) {
	case EPOLL_CTL_ADD:
		uop = UST_EPOLL_CTL_ADD;
		break;
	case EPOLL_CTL_DEL:
		uop = UST_EPOLL_CTL_DEL;
		break;
	case EPOLL_CTL_MOD:
		uop = UST_EPOLL_CTL_MOD;
		break;
	default:
		return ret_int(sh, -EINVAL);
	}
	if (ev != NULL) {
		uev.events = ev->events;
		uev.data = ev->data.u64;
	}
	return ret_int(sh, ust_epoll_ctl(sh->stk, e->sd, uop, f->sd, &uev));
}

struct epoll_arg {
	int epd;
};

static bool
epoll_ready(struct shim *sh, const void *arg)
{
	const struct epoll_arg *a = arg;
	struct ust_epoll_event ev;

	return ust_epoll_wait(sh->stk, a->epd, &ev, 1) > 0;
}

static int
pd_epoll_wait(void *ud, int epfd, struct epoll_event *events, int max,
	      int timeout)
{
	struct shim *sh = enter(ud);
	struct shim_fd *e = fd_get(sh, epfd, FD_EPOLL);
	struct ust_epoll_event uev[64];
	struct epoll_arg a;
	int n, i;

	if (e == NULL)
		return ret_int(sh, -EBADF);
	if (max <= 0)
		return ret_int(sh, -EINVAL);
	if (max > 64)
		max = 64;
	a.epd = e->sd;
	n = ust_epoll_wait(sh->stk, e->sd, uev, max);
	if (n == 0 && timeout != 0) {
		uint64_t dl = timeout < 0 ? 0 :
			sh->now_ns + (uint64_t)timeout * NS_PER_MS;

		block_until(sh, epoll_ready, &a, dl);
		n = ust_epoll_wait(sh->stk, e->sd, uev, max);
	}
	for (i = 0; i < n; i++) {
		events[i].events = uev[i].events;
		events[i].data.u64 = uev[i].data;
	}
	return ret_int(sh, n);
}

static int
pd_pipe(void *ud, int pipefd[2])
{
	(void)ud;
	(void)pipefd;
	return fail(ENOSYS);
}

static int
pd_splice(void *ud, int fd_in, loff_t *off_in, int fd_out, loff_t *off_out,
	  size_t len, unsigned int flags)
{
	(void)ud;
	(void)fd_in;
	(void)off_in;
	(void)fd_out;
	(void)off_out;
	(void)len;
	(void)flags;
	return fail(ENOSYS);
}

/* ---- packets and time ---- */

/* An Ethernet frame carrying @ip (@len bytes), in as many mbufs as it
 * takes. */
static struct rte_mbuf *
frame_alloc(struct shim *sh, const uint8_t *ip, size_t len)
{
	uint16_t type = (ip[0] >> 4) == 6 ? RTE_ETHER_TYPE_IPV6 :
		RTE_ETHER_TYPE_IPV4;
	struct rte_mbuf *head = NULL, *last = NULL, *m;
	struct rte_ether_hdr *eh;
	size_t off = 0;

	do {
		uint16_t room, n;
		uint8_t *d;

		m = rte_pktmbuf_alloc(sh->mp);
		if (m == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		if (head == NULL) {
			eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m,
				sizeof(*eh));
			rte_ether_addr_copy(&our_mac, &eh->dst_addr);
			rte_ether_addr_copy(&peer_mac, &eh->src_addr);
			eh->ether_type = rte_cpu_to_be_16(type);
		}
		room = rte_pktmbuf_tailroom(m);
		n = (uint16_t)RTE_MIN((size_t)room, len - off);
		d = (uint8_t *)rte_pktmbuf_append(m, n);
		memcpy(d, ip + off, n);
		off += n;
		if (head == NULL) {
			head = m;
		} else {
			last->next = m;
			head->nb_segs++;
			head->pkt_len += m->data_len;
		}
		last = m;
	} while (off < len);
	return head;
}

static int
pd_netdev_send(void *ud, const void *buf, size_t count)
{
	struct shim *sh = enter(ud);
	const uint8_t *p = buf;
	struct rte_mbuf *m;

	if (count < 1 || ((p[0] >> 4) != 4 &&
			  ((p[0] >> 4) != 6 || !sh->ip6))) {
		/* neither IPv4 nor (with IPv6 on) IPv6: the frame is not
		 * delivered, as an unknown EtherType would not be */
		leave(sh);
		return 0;
	}
	/* a frame longer than one mbuf (packetdrill injects up to 64 KiB,
	 * as GRO would hand the kernel) arrives chained, as a NIC with
	 * scatter-gather would deliver it */
	m = frame_alloc(sh, buf, count);
	if (m == NULL) {
		leave(sh);
		return fail(ENOBUFS);
	}
	if (sh->verbose)
		fprintf(stderr, "ust_pd_shim: %.6f in %zu bytes\n",
			sh->now_ns / 1e9, count);
	rx_push(sh, m);
	ust_stack_poll(sh->stk, sh->now_ns);
	collect(sh);
	kick(sh);
	leave(sh);
	return 0;
}

static int
pd_netdev_receive(void *ud, void *buf, size_t *count, long long *t_us)
{
	struct shim *sh = enter(ud);
	uint64_t limit = sh->now_ns + RECV_WAIT_MAX_NS;
	struct pkt *p;

	collect(sh);
	while (sh->fifo_n == 0) {
		if (sh->now_ns >= limit)
			die("the stack sent nothing in %llu s of virtual "
			    "time", (unsigned long long)
			    (RECV_WAIT_MAX_NS / NS_PER_MS / 1000));
		advance(sh, sh->now_ns + NS_PER_MS);
	}
	p = sh->fifo[sh->fifo_head];
	sh->fifo_head = (sh->fifo_head + 1) % FIFO_MAX;
	sh->fifo_n--;
	if (p->len > *count)
		p->len = (uint32_t)*count;
	memcpy(buf, p->data, p->len);
	*count = p->len;
	*t_us = (long long)(VT_EPOCH_S * 1000000ull + p->t_ns / NS_PER_US);
	free(p);
	leave(sh);
	return 0;
}

static int
pd_usleep(void *ud, useconds_t us)
{
	struct shim *sh = enter(ud);

	advance(sh, sh->now_ns + (uint64_t)us * NS_PER_US);
	leave(sh);
	return 0;
}

static int
pd_gettimeofday(void *ud, struct timeval *tv, struct timezone *tz)
{
	struct shim *sh = ud;
	uint64_t t;

	(void)tz;
	pthread_mutex_lock(&sh->mu);
	if (tl_end_ns != 0) {
		/* the end of this thread's blocking call */
		t = tl_end_ns;
		tl_end_ns = 0;
	} else {
		if (sh->stk != NULL)
			advance(sh, sh->now_ns + NS_PER_US);
		else
			sh->now_ns += NS_PER_US;
		t = sh->now_ns;
	}
	pthread_mutex_unlock(&sh->mu);
	tv->tv_sec = (time_t)(VT_EPOCH_S + t / (1000 * NS_PER_MS));
	tv->tv_usec = (suseconds_t)((t % (1000 * NS_PER_MS)) / NS_PER_US);
	return 0;
}

/* ---- set-up and teardown ---- */

static void
pd_free(void *ud)
{
	struct shim *sh = ud;
	unsigned int in_use;
	int fd;

	pthread_mutex_lock(&sh->mu);
	for (fd = 0; fd < FD_MAX; fd++)
		if (sh->fds[fd].kind != FD_NONE && sh->stk != NULL)
			ust_close(sh->stk, sh->fds[fd].sd);
	if (sh->stk != NULL) {
		collect(sh);
		ust_stack_destroy(sh->stk);
		sh->stk = NULL;
	}
	while (sh->rx_n > 0)
		rte_pktmbuf_free(sh->rx[--sh->rx_n]);
	while (sh->fifo_n > 0) {
		free(sh->fifo[sh->fifo_head]);
		sh->fifo_head = (sh->fifo_head + 1) % FIFO_MAX;
		sh->fifo_n--;
	}
	in_use = rte_mempool_in_use_count(sh->mp);
	pthread_mutex_unlock(&sh->mu);
	if (in_use != 0)
		die("leak: %u mbufs still in use after the stack was "
		    "destroyed", in_use);
}

static void
parse_flags(struct shim *sh, const char *flags)
{
	char *s = strdup(flags != NULL ? flags : ""), *save = NULL, *tok;
	struct in_addr a;
	struct in6_addr a6;

	if (s == NULL)
		die("out of memory");
	for (tok = strtok_r(s, " ,", &save); tok != NULL;
	     tok = strtok_r(NULL, " ,", &save)) {
		char *v = strchr(tok, '=');

		if (v == NULL)
			die("--so_flags: '%s' is not key=value", tok);
		*v++ = '\0';
		if (strcmp(tok, "local_ip") == 0 && inet_aton(v, &a))
			sh->addr = a.s_addr;
		else if (strcmp(tok, "gateway_ip") == 0 && inet_aton(v, &a))
			sh->gateway = a.s_addr;
		else if (strcmp(tok, "prefix") == 0 && atoi(v) > 0 &&
			 atoi(v) <= 32)
			sh->prefix_len = (uint8_t)atoi(v);
		else if (strcmp(tok, "ip6") == 0)
			sh->ip6 = atoi(v) != 0;
		else if (strcmp(tok, "local_ip6") == 0 &&
			 inet_pton(AF_INET6, v, &a6) == 1) {
			memcpy(sh->addr6, &a6, 16);
			sh->ip6 = true;
		} else if (strcmp(tok, "gateway_ip6") == 0 &&
			 inet_pton(AF_INET6, v, &a6) == 1)
			memcpy(sh->gateway6, &a6, 16);
		else if (strcmp(tok, "prefix6") == 0 && atoi(v) > 0 &&
			 atoi(v) <= 128)
			sh->prefix6 = (uint8_t)atoi(v);
		else if (strcmp(tok, "mtu") == 0 && atoi(v) >= 576 &&
			 atoi(v) <= 9000)
			sh->mtu = (uint16_t)atoi(v);
		else if (strcmp(tok, "verbose") == 0)
			sh->verbose = atoi(v);
		else
			die("--so_flags: bad setting %s=%s", tok, v);
	}
	free(s);
}

static void
eal_init(void)
{
	char prefix[64], lcores[160];
	cpu_set_t set;
	size_t off;
	int cpu;
	char *argv[] = {
		(char *)"ust_pd_shim", (char *)"--lcores", lcores,
		(char *)"--no-huge", (char *)"-m", (char *)"128",
		(char *)"--no-pci", (char *)"--no-shconf",
		(char *)"--no-telemetry", (char *)"--log-level=lib.eal:error",
		(char *)"--file-prefix", prefix, NULL,
	};

	/* lcore 0 on whatever CPUs the process may use: EAL pins the
	 * calling thread, and two scripts may run side by side */
	off = (size_t)snprintf(lcores, sizeof(lcores), "0@(");
	CPU_ZERO(&set);
	sched_getaffinity(0, sizeof(set), &set);
	for (cpu = 0; cpu < CPU_SETSIZE && off < sizeof(lcores) - 8; cpu++)
		if (CPU_ISSET(cpu, &set))
			off += (size_t)snprintf(lcores + off,
						sizeof(lcores) - off, "%d,",
						cpu);
	lcores[off - 1] = ')';
	snprintf(prefix, sizeof(prefix), "pd%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0)
		die("rte_eal_init failed: %s", rte_strerror(rte_errno));
}

void
packetdrill_interface_init(const char *flags, struct packetdrill_interface *ifc)
{
	struct shim *sh = calloc(1, sizeof(*sh));

	if (sh == NULL)
		die("out of memory");
	sh->addr = RTE_BE32(RTE_IPV4(198, 18, 0, 2));
	sh->gateway = RTE_BE32(RTE_IPV4(198, 18, 0, 1));
	sh->prefix_len = 24;
	sh->mtu = 1500;
	sh->prefix6 = 64;
	parse_flags(sh, flags);
	pthread_mutex_init(&sh->mu, NULL);
	pthread_cond_init(&sh->wake, NULL);
	pthread_cond_init(&sh->ack, NULL);
	sh->main_thread = pthread_self();
	sh->now_ns = VT_START_NS;
	sh->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (sh->null_fd < 0)
		die("/dev/null: %s", strerror(errno));
	eal_init();
	sh->mp = rte_pktmbuf_pool_create("pd_pool", 16383, 256, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE,
					 (int)rte_socket_id());
	if (sh->mp == NULL)
		die("mbuf pool: %s", rte_strerror(rte_errno));
	sh->ops.rx_burst = shim_rx;
	sh->ops.tx_burst = shim_tx;

	memset(ifc, 0, sizeof(*ifc));
	ifc->userdata = sh;
	ifc->free = pd_free;
	ifc->socket = pd_socket;
	ifc->bind = pd_bind;
	ifc->listen = pd_listen;
	ifc->accept = pd_accept;
	ifc->connect = pd_connect;
	ifc->read = pd_read;
	ifc->readv = pd_readv;
	ifc->recv = pd_recv;
	ifc->recvfrom = pd_recvfrom;
	ifc->recvmsg = pd_recvmsg;
	ifc->write = pd_write;
	ifc->writev = pd_writev;
	ifc->send = pd_send;
	ifc->sendto = pd_sendto;
	ifc->sendmsg = pd_sendmsg;
	ifc->fcntl = pd_fcntl;
	ifc->ioctl = pd_ioctl;
	ifc->close = pd_close;
	ifc->shutdown = pd_shutdown;
	ifc->getsockopt = pd_getsockopt;
	ifc->setsockopt = pd_setsockopt;
	ifc->poll = pd_poll;
	ifc->netdev_send = pd_netdev_send;
	ifc->netdev_receive = pd_netdev_receive;
	ifc->usleep = pd_usleep;
	ifc->gettimeofday = pd_gettimeofday;
	ifc->epoll_create = pd_epoll_create;
	ifc->epoll_ctl = pd_epoll_ctl;
	ifc->epoll_wait = pd_epoll_wait;
	ifc->pipe = pd_pipe;
	ifc->splice = pd_splice;
}
