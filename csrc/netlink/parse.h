/*
 * netlink/parse.h -- rtnetlink parsing as pure functions over byte buffers.
 * No syscalls: the fuzzers and the tests feed these recorded and broken dumps.
 */
#ifndef NETIFC_NLPARSE_H
#define NETIFC_NLPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/netifc.h"

#define NL_DONE 0       /* the reply is complete */
#define NL_MORE 1       /* more datagrams belong to it */

/* Called for each data message of our reply; returns 0 or a negative errno. */
typedef int (*nl_msg_cb)(uint16_t type, const uint8_t *payload, size_t len, void *ctx);

struct nl_walk {
	uint32_t seq;           /* the request's sequence number */
	uint32_t portid;        /* our socket's port id */
	int dump;               /* a dump ends with NLMSG_DONE, a request with one reply */
	int intr;               /* set when the kernel flagged NLM_F_DUMP_INTR */
	int ended;              /* set when the reply's last message was read */
	nl_msg_cb cb;
	void *ctx;
};

/* One datagram: NL_MORE, NL_DONE, or a negative errno (NLMSG_ERROR's own). */
int nl_walk(struct nl_walk *w, const void *buf, size_t len);

/*
 * The next attribute of an attribute stream (rtattr and nlattr share their
 * layout): 1 with *a its type (flag bits cleared), data and length, 0 at
 * the end, -EPROTO when one overruns what is left.  *rem stays signed.
 */
struct nl_attr {
	unsigned type;
	const uint8_t *data;
	size_t len;
};

int nl_attr_next(const uint8_t **p, long *rem, struct nl_attr *a);

/*
 * A message's fixed header (struct ifinfomsg, ifaddrmsg, rtmsg): its size
 * bytes copied to hdr, and *p moved to the attributes after it, with *rem
 * what is left of the payload; -EPROTO when the payload is shorter.
 */
int nl_msg_header(const uint8_t **p, size_t len, void *hdr, size_t size, long *rem);

/* A 32-bit attribute's value: 0, or -EPROTO when it has fewer than 4 bytes. */
int nl_attr_u32(const struct nl_attr *a, uint32_t *v);

/*
 * One message's payload: 1 filled a record, 0 not ours to parse, -EPROTO
 * (or -ENOMEM).  A link is appended to the table, with its altnames; on 0
 * or an error the table is as it was.
 */
int nl_parse_link(uint16_t type, const uint8_t *p, size_t len, struct netifc_links *t);
int nl_parse_addr(uint16_t type, const uint8_t *p, size_t len, struct netifc_addr *out);

/*
 * Change notifications, as a watch socket receives them: each message of a
 * datagram becomes an event, in order, with its record (a link, or an
 * address or group whose zone is left for the caller to name: zone "").
 */
enum nl_event_kind {
	NL_EV_LINK_NEW,
	NL_EV_LINK_DEL,
	NL_EV_ADDR_NEW,
	NL_EV_ADDR_DEL,
	NL_EV_GROUP_NEW,
	NL_EV_GROUP_DEL,
};

struct nl_event {
	uint8_t kind;           /* enum nl_event_kind */
	uint32_t at;            /* its record: links.v[at] or addrs.v[at] */
};

struct nl_events {
	struct nl_event *v;
	size_t n, cap;
	struct netifc_links links;
	struct netifc_addrs addrs;
	unsigned lost;          /* events the kernel dropped or that could not be read */
};

/*
 * One datagram of notifications, appended to ev: 0 or -ENOMEM.  A message
 * that cannot be parsed, or a length that overruns the datagram, counts as
 * lost (the caller reads the tables again).  Messages of other types, and
 * bridge port notifications (ifi_family AF_BRIDGE), are skipped.
 */
int nl_parse_events(const void *buf, size_t len, struct nl_events *ev);
void nl_events_clear(struct nl_events *ev);
void nl_events_free(struct nl_events *ev);

#endif
