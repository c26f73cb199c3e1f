/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Wire layer odds and ends: error names. The per-protocol parsers and
 * emitters live in eth.c, arp.c, ipv4.c, icmp.c and udp.c.
 */

#include "ust_wire.h"

const char *
ust_wire_strerror(int err)
{
	switch (err) {
	case UST_WIRE_OK:
		return "ok";
	case UST_WIRE_ETRUNC:
		return "truncated";
	case UST_WIRE_EVERSION:
		return "bad version";
	case UST_WIRE_EIHL:
		return "bad header length";
	case UST_WIRE_ELEN:
		return "bad length field";
	case UST_WIRE_ECSUM:
		return "bad checksum";
	case UST_WIRE_EOPTION:
		return "malformed options";
	case UST_WIRE_EUNSUPP:
		return "unsupported";
	case UST_WIRE_EMALFORMED:
		return "malformed";
	default:
		return "unknown error";
	}
}
