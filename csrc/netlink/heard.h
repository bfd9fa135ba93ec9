/*
 * netlink/heard.h -- what the kernel told of while a dump ran: the links
 * whose addresses or groups changed, and whether a link came or went
 * (netlink/heard.c).  A pure parser over the notification datagrams heard
 * on the dump's socket, so a dump the kernel flags interrupted can be
 * mended instead of asked again whole.
 */
#ifndef NETIFC_NETLINK_HEARD_H
#define NETIFC_NETLINK_HEARD_H

#include <stddef.h>
#include <stdint.h>

struct nl_heard {
	int32_t *links; /* the links told changed; sorted and unique after nl_heard_sort */
	size_t n, cap;
	int relisted;   /* a link came or went, or a message could not be read */
	int routes6;    /* an IPv6 route came, went or changed */
	int family; /* the dump flagged interrupted: of AF_INET, AF_INET6, or AF_UNSPEC (both) */
};

/*
 * One datagram of notifications: the index of each address or group
 * message (RTM_NEWADDR, RTM_DELADDR, RTM_NEWMULTICAST, RTM_DELMULTICAST) is
 * noted; RTM_DELLINK, and an RTM_NEWLINK that announces a link new to the
 * namespace (ifi_change all ones, as registering or moving one in sends),
 * set relisted; so does a message that overruns the datagram or is too
 * short for its header.  RTM_NEWROUTE and RTM_DELROUTE of IPv6 set
 * routes6.  Other messages are skipped.  0 or -ENOMEM.
 */
int nl_heard_parse(struct nl_heard *h, const void *buf, size_t len);

void nl_heard_sort(struct nl_heard *h);
/* After nl_heard_sort: whether link index was told changed. */
int nl_heard_has(const struct nl_heard *h, int32_t index);
/* Clear what was heard, for a dump of family (AF_UNSPEC: both). */
void nl_heard_clear(struct nl_heard *h, int family);
void nl_heard_free(struct nl_heard *h);

#endif
