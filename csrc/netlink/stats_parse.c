/*
 * netlink/stats_parse.c -- decode RTM_NEWSTATS and the generic netlink replies that
 * tell a link's speed and duplex.  Every length is checked against what is
 * left (nl_attr_next); unknown attributes are skipped.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "netlink/parse.h"
#include "netlink/stats_parse.h"

#define STATS_MSG_LEN 12        /* struct if_stats_msg */
#define STATS_LINK_64 1         /* IFLA_STATS_LINK_64 */
/* The counters every kernel with IFLA_STATS_LINK_64 sends (rx_nohandler on). */
#define STATS_MIN_COUNTERS 24

int nl_parse_stats(uint16_t type, const uint8_t *p, size_t len, struct netifc_counters *out)
{
	long rem = (long)len - STATS_MSG_LEN;
	struct nl_attr a;
	size_t n;
	int32_t index;
	int r, seen = 0;

	if (type != RTM_NEWSTATS)
		return 0;
	if (rem < 0)
		return -EPROTO;
	memcpy(&index, p + 4, sizeof index);    /* after family, pad1, pad2 */
	if (index <= 0)
		return -EPROTO;
	out->index = index;     /* no memset: a table's new record is zeroed already */
	out->known = 0;
	out->name[0] = 0;
	p += STATS_MSG_LEN;
	while ((r = nl_attr_next(&p, &rem, &a)) > 0) {
		if (a.type != STATS_LINK_64)
			continue;
		if (seen++ || a.len < STATS_MIN_COUNTERS * 8 || a.len % 8)
			return -EPROTO;
		n = a.len;
		if (n > sizeof out->v)
			n = sizeof out->v;      /* counters of a later kernel */
		memcpy(out->v, a.data, n);
		out->known = (uint8_t)(n / 8);
	}
	return r < 0 ? r : seen ? 1 : -EPROTO;
}

void netifc_stats_request(struct nl_stats_req *q, int32_t index)
{
	memset(q, 0, sizeof *q);
	q->h.nlmsg_len = NLMSG_LENGTH(sizeof q->ifsm);
	q->h.nlmsg_type = RTM_GETSTATS;
	q->h.nlmsg_flags = NLM_F_REQUEST | (index ? 0 : NLM_F_DUMP);
	q->ifsm.family = AF_UNSPEC;
	q->ifsm.ifindex = (uint32_t)index;
	q->ifsm.filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
}

int nl_parse_genl_family(const uint8_t *p, size_t len, uint16_t *id)
{
	long rem = (long)len - GENL_HDRLEN;
	struct nl_attr a;
	int r, found = 0;

	if (rem < 0)
		return -EPROTO;
	p += GENL_HDRLEN;
	while ((r = nl_attr_next(&p, &rem, &a)) > 0) {
		if (a.type != CTRL_ATTR_FAMILY_ID)
			continue;
		if (a.len < 2)
			return -EPROTO;
		memcpy(id, a.data, 2);
		found = *id >= NLMSG_MIN_TYPE;
	}
	return r < 0 ? r : found ? 1 : -EPROTO;
}

#define LINKMODES_SPEED 5       /* ETHTOOL_A_LINKMODES_SPEED, u32 */
#define LINKMODES_DUPLEX 6      /* ETHTOOL_A_LINKMODES_DUPLEX, u8 */

int nl_parse_linkmodes(const uint8_t *p, size_t len, struct netifc_link_settings *out)
{
	long rem = (long)len - GENL_HDRLEN;
	struct nl_attr a;
	int r;

	if (rem < 0)
		return -EPROTO;
	out->speed = NETIFC_SPEED_UNKNOWN;
	out->duplex = NETIFC_DUPLEX_UNKNOWN;
	p += GENL_HDRLEN;
	while ((r = nl_attr_next(&p, &rem, &a)) > 0) {
		if (a.type == LINKMODES_SPEED) {
			if (nl_attr_u32(&a, &out->speed) < 0)
				return -EPROTO;
		} else if (a.type == LINKMODES_DUPLEX) {
			if (a.len < 1)
				return -EPROTO;
			out->duplex = a.data[0];
		}
	}
	return r < 0 ? r : 1;
}
