/*
 * netlink/stats_parse.h -- link counters and link settings from netlink replies, as
 * pure functions over a message's payload (netlink/stats_parse.c).  No syscalls: the
 * fuzzer feeds them recorded and broken replies.
 */
#ifndef NETIFC_STATSPARSE_H
#define NETIFC_STATSPARSE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/if_link.h>
#include <linux/netlink.h>

#include "core/netifc.h"

/*
 * An RTM_NEWSTATS payload (struct if_stats_msg, then IFLA_STATS_LINK_64)
 * into *out: 1, 0 when not RTM_NEWSTATS, -EPROTO.  The name is left empty;
 * the counters past out->known are not written.
 */
int nl_parse_stats(uint16_t type, const uint8_t *p, size_t len, struct netifc_counters *out);

/* An RTM_GETSTATS request for the 64-bit link counters only: every link's
 * (a dump, index 0) or one link's. */
struct nl_stats_req {
	struct nlmsghdr h;
	struct if_stats_msg ifsm;
};

void netifc_stats_request(struct nl_stats_req *q, int32_t index);

/* A link's speed (Mb/s) and duplex, the ethtool values. */
#define NETIFC_SPEED_UNKNOWN 0xffffffffu
#define NETIFC_DUPLEX_HALF 0
#define NETIFC_DUPLEX_FULL 1
#define NETIFC_DUPLEX_UNKNOWN 0xff

struct netifc_link_settings {
	uint32_t speed;         /* Mb/s, or NETIFC_SPEED_UNKNOWN */
	uint8_t duplex;         /* NETIFC_DUPLEX_* */
};

/*
 * Generic netlink payloads (struct genlmsghdr, then attributes).  The
 * controller's answer to CTRL_CMD_GETFAMILY: 1 with the family's id, or
 * -EPROTO.  An ETHTOOL_MSG_LINKMODES_GET reply: 1 with what it tells (the
 * rest unknown), or -EPROTO.
 */
int nl_parse_genl_family(const uint8_t *p, size_t len, uint16_t *id);
int nl_parse_linkmodes(const uint8_t *p, size_t len, struct netifc_link_settings *out);

#endif
