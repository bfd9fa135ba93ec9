/*
 * ethtool.c -- a link's speed and duplex: ethtool's generic netlink family
 * (ETHTOOL_MSG_LINKMODES_GET; the family's id is asked of the controller
 * once per process), else, on kernels without it, the SIOCETHTOOL ioctl
 * (ETHTOOL_GLINKSETTINGS, then the older ETHTOOL_GSET).  What a driver
 * cannot tell is unknown, never an error.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/genetlink.h>
#include <linux/sockios.h>

#include "netlink/ethtool.h"
#include "netlink/fork.h"
#include "netlink/netns.h"
#include "netlink/io.h"

#define FAMILY_UNASKED 0
#define FAMILY_ABSENT (-1)
#define ETHTOOL_NAME "ethtool"
#define ETHTOOL_VERSION 1
#define LINKMODES_GET 4         /* ETHTOOL_MSG_LINKMODES_GET */
#define LINKMODES_HEADER 1      /* ETHTOOL_A_LINKMODES_HEADER, nested */
#define HEADER_DEV_INDEX 1      /* ETHTOOL_A_HEADER_DEV_INDEX, u32 */
#define HEADER_FLAGS 3          /* ETHTOOL_A_HEADER_FLAGS, u32 */
#define FLAG_COMPACT 1          /* ETHTOOL_FLAG_COMPACT_BITSETS: short mode lists */

static int family = FAMILY_UNASKED;     /* the ethtool family's id, once known */

/* The errors that mean "this link cannot tell": no driver support, a
 * virtual link, a link that is gone. */
static int cannot_tell(int err)
{
	return err == -EOPNOTSUPP || err == -EINVAL || err == -EBUSY || err == -ENOTTY ||
	       err == -ENODEV || err == -ENXIO;
}

struct genl_attr {
	uint16_t len;
	uint16_t type;
};

static int on_family(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	return type == GENL_ID_CTRL && nl_parse_genl_family(p, len, ctx) < 0 ? -EPROTO : 0;
}

/* The ethtool family's id into family: FAMILY_ABSENT on older kernels. */
static int resolve(struct nl_sock *s, struct netifc_call *c)
{
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
		struct genl_attr a;
		char name[(sizeof ETHTOOL_NAME + 3) & ~3u];
	} q;
	uint16_t id = 0;
	int r;

	memset(&q, 0, sizeof q);
	q.h.nlmsg_len = sizeof q;
	q.h.nlmsg_type = GENL_ID_CTRL;
	q.h.nlmsg_flags = NLM_F_REQUEST;
	q.g.cmd = CTRL_CMD_GETFAMILY;
	q.g.version = 1;
	q.a.len = sizeof q.a + sizeof ETHTOOL_NAME;
	q.a.type = CTRL_ATTR_FAMILY_NAME;
	memcpy(q.name, ETHTOOL_NAME, sizeof ETHTOOL_NAME);
	c->step = "generic netlink CTRL_CMD_GETFAMILY ethtool";
	r = nl_talk(s, &q.h, on_family, &id);
	if (r == -ENOENT || (r == 0 && !id)) {
		__atomic_store_n(&family, FAMILY_ABSENT, __ATOMIC_RELAXED);
		return 0;
	}
	if (r == 0)
		__atomic_store_n(&family, id, __ATOMIC_RELAXED);
	return r;
}

struct linkmodes {
	uint16_t family;
	struct netifc_link_settings *out;
};

static int on_linkmodes(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	struct linkmodes *m = ctx;

	return type == m->family && nl_parse_linkmodes(p, len, m->out) < 0 ? -EPROTO : 0;
}

static int ask_netlink(struct nl_sock *s, struct netifc_call *c, int32_t index,
		       struct netifc_link_settings *out)
{
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
		struct genl_attr head, dev;
		uint32_t index;
		struct genl_attr flags;
		uint32_t flag_bits;
	} q;
	struct linkmodes m = { .family = (uint16_t)__atomic_load_n(&family, __ATOMIC_RELAXED),
			       .out = out };

	memset(&q, 0, sizeof q);
	q.h.nlmsg_len = sizeof q;
	q.h.nlmsg_type = m.family;
	q.h.nlmsg_flags = NLM_F_REQUEST;
	q.g.cmd = LINKMODES_GET;
	q.g.version = ETHTOOL_VERSION;
	q.head.len = sizeof q - offsetof(__typeof__(q), head);
	q.head.type = LINKMODES_HEADER | NLA_F_NESTED;
	q.dev.len = sizeof q.dev + sizeof q.index;
	q.dev.type = HEADER_DEV_INDEX;
	q.index = (uint32_t)index;
	q.flags.len = sizeof q.flags + sizeof q.flag_bits;
	q.flags.type = HEADER_FLAGS;
	q.flag_bits = FLAG_COMPACT;
	c->step = "generic netlink ETHTOOL_MSG_LINKMODES_GET";
	return nl_talk(s, &q.h, on_linkmodes, &m);
}

/* ETHTOOL_GLINKSETTINGS: the kernel first tells how many mask words it wants. */
static int ask_glinksettings(int fd, struct ifreq *ifr, struct netifc_link_settings *out)
{
	struct {
		struct ethtool_link_settings base;
		uint32_t masks[3 * 127];
	} q;
	int8_t words;

	memset(&q, 0, sizeof q);
	q.base.cmd = ETHTOOL_GLINKSETTINGS;
	ifr->ifr_data = (void *)&q;
	if (ioctl(fd, SIOCETHTOOL, ifr) < 0)
		return -errno;
	words = (int8_t)-q.base.link_mode_masks_nwords;
	if (words <= 0)
		return -EOPNOTSUPP;
	memset(&q, 0, sizeof q);
	q.base.cmd = ETHTOOL_GLINKSETTINGS;
	q.base.link_mode_masks_nwords = words;
	if (ioctl(fd, SIOCETHTOOL, ifr) < 0)
		return -errno;
	out->speed = q.base.speed;
	out->duplex = q.base.duplex;
	return 0;
}

static int ask_gset(int fd, struct ifreq *ifr, struct netifc_link_settings *out)
{
	struct ethtool_cmd q;

	memset(&q, 0, sizeof q);
	q.cmd = ETHTOOL_GSET;
	ifr->ifr_data = (void *)&q;
	if (ioctl(fd, SIOCETHTOOL, ifr) < 0)
		return -errno;
	out->speed = (uint32_t)q.speed | (uint32_t)q.speed_hi << 16;
	out->duplex = q.duplex;
	return 0;
}

static int ask_ioctl(int fd, struct netifc_call *c, const char *name,
		     struct netifc_link_settings *out)
{
	struct ifreq ifr;
	int r;

	memset(&ifr, 0, sizeof ifr);
	strncpy(ifr.ifr_name, name, sizeof ifr.ifr_name - 1);
	c->step = "SIOCETHTOOL ETHTOOL_GLINKSETTINGS";
	r = ask_glinksettings(fd, &ifr, out);
	if (r == -EOPNOTSUPP) {
		c->step = "SIOCETHTOOL ETHTOOL_GSET";
		r = ask_gset(fd, &ifr, out);
	}
	return r;
}

/* For nl_fork_hold: s's descriptor, or a negative errno. */
static int open_generic(void *p)
{
	struct nl_sock *s = p;
	int r = nl_open_generic(s);

	return r < 0 ? r : s->fd;
}

/*
 * The socket is held on the fork registry's list of calls (netlink/fork.h),
 * so a child forked meanwhile does not hold it.
 */
int netifc_link_settings(struct netifc_call *c, int32_t index, const char *name,
			 struct netifc_link_settings *out)
{
	struct nl_fork_fd *held;
	struct nl_sock s;
	int r;

	out->speed = NETIFC_SPEED_UNKNOWN;
	out->duplex = NETIFC_DUPLEX_UNKNOWN;
	c->step = "generic netlink socket";
	s.fd = -1;
	r = c->ns ? netifc_ns_hold(c->ns, &held, open_generic, &s)
		  : nl_fork_hold(&held, open_generic, &s);
	if (r < 0)
		return r == -EPROTONOSUPPORT ? 0 : r;
	r = 0;
	if (__atomic_load_n(&family, __ATOMIC_RELAXED) == FAMILY_UNASKED)
		r = resolve(&s, c);
	if (r == 0 && __atomic_load_n(&family, __ATOMIC_RELAXED) > 0 &&
	    !(c->opts & NETIFC_NO_ETHTOOL_NL))
		r = ask_netlink(&s, c, index, out);
	else if (r == 0)
		r = ask_ioctl(s.fd, c, name, out);
	nl_fork_release(held);  /* closes s.fd; nl_close frees the rest */
	s.fd = -1;
	nl_close(&s);
	if (cannot_tell(r)) {
		out->speed = NETIFC_SPEED_UNKNOWN;
		out->duplex = NETIFC_DUPLEX_UNKNOWN;
		r = 0;
	}
	if (out->speed == 0)
		out->speed = NETIFC_SPEED_UNKNOWN;     /* what some drivers give for unknown */
	if (out->duplex != NETIFC_DUPLEX_HALF && out->duplex != NETIFC_DUPLEX_FULL)
		out->duplex = NETIFC_DUPLEX_UNKNOWN;
	return r;
}
