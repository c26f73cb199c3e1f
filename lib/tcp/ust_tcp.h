/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * TCP specifics of the socket API (ust_socket.h): connection states, the
 * options that TCP sockets take, and UST_TCP_INFO.
 *
 * TCP sockets use the same calls as UDP ones: ust_socket(AF_INET,
 * SOCK_STREAM, 0), ust_bind(), ust_listen(), ust_accept(), ust_connect()
 * (returns -EINPROGRESS; UST_EPOLLOUT or SO_ERROR tell the outcome),
 * ust_send(), ust_recv(), ust_shutdown(), ust_close(), and the zero-copy
 * ust_send_burst() / ust_recv_burst().
 *
 * Options (level IPPROTO_TCP, values from <netinet/tcp.h>): TCP_NODELAY,
 * TCP_MAXSEG (before connect, or on a listener, whose connections
 * inherit it and whose SYN-ACKs announce it; 0: the default; EINVAL on a
 * connection), TCP_QUICKACK, TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT
 * (seconds, counts), TCP_CONGESTION ("cubic", "newreno"), TCP_CORK (no
 * partial segment until uncorked, a full MSS or 200 ms), TCP_NOTSENT_LOWAT
 * (bytes: UST_EPOLLOUT, and send() takes data, only while fewer are
 * unsent; 0: off), TCP_USER_TIMEOUT (ms: abort with ETIMEDOUT when data
 * stays unacknowledged that long, RFC 5482; 0: the retry counts),
 * TCP_INQ (0 or 1, read back as set), TCP_INFO (get:
 * Linux's struct tcp_info from <linux/tcp.h>, min(length, its size)
 * bytes); level IPPROTO_IP (an int or one byte): IP_TOS (the ECN bits
 * stay the stack's), IP_MTU_DISCOVER (IP_PMTUDISC_DONT: no DF and
 * ICMP's MTU ignored; WANT, the default, DO, PROBE: DF and PMTU
 * discovery), IP_MTU (get, connected: the path MTU); level SOL_SOCKET:
 * SO_RCVBUF, SO_SNDBUF (clamped to the configured maxima, doubled, as
 * Linux), SO_KEEPALIVE, SO_LINGER, SO_REUSEADDR, SO_ERROR (the error, else
 * a soft ICMP error the connection survived); level UST_SOL_USTACK:
 * UST_TCP_INFO (get), UST_TCP_TX_LAYOUT and UST_TCP_COPY_SMALL
 * (ust_tcp_tx.h). Listeners pass their options to the connections they
 * accept. Other options: -ENOPROTOOPT.
 */

#ifndef UST_TCP_H
#define UST_TCP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** RFC 9293 connection states (ust_tcp_info.state). */
enum ust_tcp_state {
	UST_TCP_CLOSED = 0,
	UST_TCP_LISTEN,
	UST_TCP_SYN_SENT,
	UST_TCP_SYN_RECEIVED,
	UST_TCP_ESTABLISHED,
	UST_TCP_FIN_WAIT_1,
	UST_TCP_FIN_WAIT_2,
	UST_TCP_CLOSE_WAIT,
	UST_TCP_CLOSING,
	UST_TCP_LAST_ACK,
	UST_TCP_TIME_WAIT,
};

/** Name of a state ("ESTABLISHED"). */
const char *ust_tcp_state_name(unsigned int state);

/** get only, struct ust_tcp_info: a connection's state and counters. */
#define UST_TCP_INFO 16

/** A connection's state, as Linux's struct tcp_info tells it. */
struct ust_tcp_info {
	uint8_t state;          /**< enum ust_tcp_state */
	uint8_t snd_wscale;
	uint8_t rcv_wscale;
	uint8_t options;        /**< UST_TCPOPT_* in use (ust_wire.h) */
	uint8_t backoff;
	uint8_t in_recovery;
	uint16_t mss;           /**< send MSS */
	uint32_t rto_us;
	uint32_t srtt_us;
	uint32_t rttvar_us;
	uint32_t cwnd;          /**< bytes */
	uint32_t ssthresh;      /**< bytes */
	uint32_t snd_wnd;       /**< the peer's window, bytes */
	uint32_t rcv_wnd;       /**< our window, bytes */
	uint32_t unacked;       /**< bytes in flight */
	uint32_t sacked;        /**< of which SACKed */
	uint32_t snd_buffered;  /**< bytes in the send queue */
	uint32_t rcv_buffered;  /**< bytes waiting to be read */
	uint32_t ofo_segs;      /**< segments in the out-of-order queue */
	uint64_t segs_in;
	uint64_t segs_out;
	uint64_t retrans;       /**< segments retransmitted */
	uint64_t bytes_acked;
	uint64_t bytes_received;
	char congestion[16];
	/* TX layout (ust_tcp_tx.h) and its counters */
	uint8_t tx_layout;      /**< enum ust_tcp_tx_layout */
	uint16_t copy_small;    /**< frame bytes copied whole, 0: off */
	uint64_t tx_pkts;       /**< packets built */
	uint64_t tx_segs;       /**< their mbuf segments */
	uint64_t tx_pages;      /**< distinct 4 KiB pages they referenced */
	uint64_t tx_copied;     /**< payload bytes copied to build them */
};

struct ust_stack;

/**
 * The memory of a stack's TCP objects. Control blocks, TIME_WAIT entries,
 * SACK blocks and RACK's record arrays come from slabs of the stack's own,
 * grown as connections need them (chunks from the DPDK heap, kept until
 * the stack is destroyed); an idle connection holds its control block
 * only: its SACK block and its record array go back when nothing is in
 * flight, SACKed or to be announced. A record array of more than 64
 * records (a large flight) comes from the heap itself and is counted in
 * rack_heap.
 */
struct ust_tcp_mem {
	uint32_t sock_size;     /**< bytes of a control block */
	uint32_t tw_size;       /**< of a TIME_WAIT entry */
	uint32_t sack_size;     /**< of a SACK block */
	uint64_t socks;         /**< control blocks in use */
	uint64_t tws;           /**< TIME_WAIT entries in use */
	uint64_t sacks;         /**< SACK blocks in use */
	uint64_t racks;         /**< record arrays in use (from slabs) */
	uint64_t rack_bytes;    /**< their bytes */
	uint64_t slab_bytes;    /**< all the slabs' chunks, bytes */
};

/** Fill @p m for @p stk; 0, or -EINVAL. */
int ust_tcp_mem_get(struct ust_stack *stk, struct ust_tcp_mem *m);

#ifdef __cplusplus
}
#endif

#endif /* UST_TCP_H */
