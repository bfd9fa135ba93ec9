/*
 * netifc.h -- the portable enumeration core: its records and its calls.
 *
 * Plain C records for links and addresses, and the backend calls that fill
 * them.  Nothing here knows Python.  Every call returns 0 or a negative
 * errno, and names the step that failed in its struct netifc_call; it never
 * prints and never exits.  -ENODEV means "no such interface".
 */
#ifndef NETIFC_H
#define NETIFC_H

#include <stddef.h>
#include <stdint.h>

#ifdef _WIN32
#define NETIFC_NAMESIZ 256 /* a FriendlyName in UTF-8, cut at a character (windows/iphlpapi.c) */
#else
#define NETIFC_NAMESIZ 16 /* IFNAMSIZ: 15 bytes and a NUL */
#endif
#define NETIFC_LABELSIZ 16 /* IFNAMSIZ: an IPv4 label (IFA_LABEL), Linux only */
#define NETIFC_HWADDR_MAX 32 /* MAX_ADDR_LEN */
#define NETIFC_FOREVER 0xffffffffu
#define NETIFC_TRIES 8 /* attempts at a request before EBUSY */

struct netifc_link {
	int32_t index;
	uint32_t mtu;
	uint32_t flags; /* IFF_* as the kernel reports them */
	uint16_t type; /* ARPHRD_* */
	uint8_t operstate; /* IF_OPER_* (RFC 2863) */
	uint8_t hwaddr_len; /* 0 when none (or all zero) */
	uint8_t brd_len; /* 0 when none */
	uint8_t hwaddr[NETIFC_HWADDR_MAX];
	uint8_t brd[NETIFC_HWADDR_MAX]; /* the link-layer broadcast address */
	uint32_t alt_off; /* altnames: alt_len bytes of NUL-ended names */
	uint32_t alt_len; /*   at alt_off in the table's pool */
	char name[NETIFC_NAMESIZ];
};

struct netifc_addr {
	int32_t index;
	uint32_t flags; /* IFA_F_* */
	uint32_t preferred; /* seconds, or NETIFC_FOREVER */
	uint32_t valid;
	uint8_t family; /* AF_INET or AF_INET6 */
	uint8_t prefixlen;
	uint8_t scope; /* RT_SCOPE_* */
	uint8_t has_peer;
	uint8_t has_broadcast;
	uint8_t has_lifetimes; /* 0: the backend does not know them */
	uint8_t local[16];
	uint8_t peer[16];
	uint8_t broadcast[16];
	char zone[NETIFC_NAMESIZ]; /* "" or the link's name */
	char label[NETIFC_LABELSIZ]; /* IPv4 on Linux: IFA_LABEL ("eth0", "eth0:1"); else "" */
};

struct netifc_links {
	struct netifc_link *v; /* NETIFC_LINKS_ON(buf): starts in the caller's buf */
	size_t n, cap;
	char *pool; /* the links' altnames */
	size_t pool_n, pool_cap;
	int borrowed; /* v is the caller's, not to be freed */
};

/* A table whose first record is *one (a lookup needs no allocation). */
#define NETIFC_LINKS_ON(one) { .v = (one), .cap = 1, .borrowed = 1 }

struct netifc_addrs {
	struct netifc_addr *v;
	size_t n, cap;
};

/*
 * A link's counters: the kernel's struct rtnl_link_stats64, field by field
 * in its order (NETIFC_COUNTER_NAMES).  known: how many of v the backend
 * gives (an older kernel, or the 32-bit getifaddrs stats, give fewer).
 */
#define NETIFC_NCOUNTERS 25
#define NETIFC_COUNTER_NAMES \
	"rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_errors", "tx_errors", \
		"rx_dropped", "tx_dropped", "multicast", "collisions", "rx_length_errors", \
		"rx_over_errors", "rx_crc_errors", "rx_frame_errors", "rx_fifo_errors", \
		"rx_missed_errors", "tx_aborted_errors", "tx_carrier_errors", "tx_fifo_errors", \
		"tx_heartbeat_errors", "tx_window_errors", "rx_compressed", "tx_compressed", \
		"rx_nohandler", "rx_otherhost_dropped"

struct netifc_counters {
	int32_t index;
	uint8_t known;
	char name[NETIFC_NAMESIZ];
	uint64_t v[NETIFC_NCOUNTERS];
};

struct netifc_counters_table {
	struct netifc_counters *v;
	size_t n, cap;
};

enum netifc_kind { NETIFC_UNICAST, NETIFC_MULTICAST };

/* Options of one call: paths a backend can be made to take (tests use them). */
#define NETIFC_NO_STRICT_CHK 1u /* filter one link's addresses in C */
#define NETIFC_NO_NL_MCAST4 2u /* IPv4 groups from /proc/net/igmp */
#define NETIFC_NO_NL_MCAST 4u /* all groups from /proc/net/igmp{,6} */
#define NETIFC_NO_ETHTOOL_NL 8u /* link settings by the SIOCETHTOOL ioctl */
#define NETIFC_NO_WATCH_MCAST 16u /* live tables: as on a kernel that tells of no groups */
/*
 * Not a path but a question: one link's addrs() (index and name given) also
 * checks, in the same call, that the link at index still has that name, and
 * gives -ENODEV when it has gone, been renamed or its index taken by another.
 */
#define NETIFC_SAME_LINK 32u

struct netifc_ns; /* another network namespace (netns.h, Linux) */

/*
 * One call: its options and its network namespace in (ns NULL: the calling
 * thread's); out, the step that failed (a static string) and, for EBUSY,
 * how often each reason made the request be asked again.
 */
struct netifc_call {
	unsigned opts;
	struct netifc_ns *ns;
	const char *step;
	unsigned interrupted; /* the kernel flagged the dump interrupted */
	unsigned outgrown; /* a reply did not fit the buffer */
	unsigned overflowed; /* the socket's queue overflowed (ENOBUFS) */
	unsigned long winerror; /* Windows: the system error code behind the errno, else 0 */
};

/*
 * A backend.  link() appends one link, by index (name NULL) or by primary
 * name (index 0).  addrs() lists one kind of address: of every link when
 * index is 0 (then, if links is not NULL, it also returns the link table it
 * took the zone names from), else of link `index`, whose name `name` is used
 * for zones (NULL: the backend looks it up).  A vanished link has no
 * addresses.  counters() appends the counters of every link (index 0) or
 * of link `index` (-ENODEV when there is none), each with its name.
 */
struct netifc_backend {
	const char *name;
	int (*links)(struct netifc_call *c, struct netifc_links *out);
	int (*link)(struct netifc_call *c, int32_t index, const char *name,
		    struct netifc_links *out);
	int (*addrs)(struct netifc_call *c, enum netifc_kind kind, int32_t index, const char *name,
		     struct netifc_links *links, struct netifc_addrs *out);
	int (*counters)(struct netifc_call *c, int32_t index, struct netifc_counters_table *out);
};

/* The one place a backend is chosen: NULL or "" gives the platform's default. */
const struct netifc_backend *netifc_backend_find(const char *name);
/* The i-th backend's name, NULL past the last. */
const char *netifc_backend_name(size_t i);

/*
 * Growable tables (vec.c).  netifc_vec_push: one zeroed record of size
 * bytes more at the end of *v (*n of them, room for *cap), or NULL when out
 * of memory (the table as it was); every table below grows by it.
 */
void *netifc_vec_push(void **v, size_t *n, size_t *cap, size_t size);
struct netifc_link *netifc_links_push(struct netifc_links *t);
struct netifc_addr *netifc_addrs_push(struct netifc_addrs *t);
int netifc_links_add_altname(struct netifc_links *t, struct netifc_link *l, const char *name,
			     size_t len);
void netifc_links_truncate(struct netifc_links *t, size_t n);
void netifc_links_free(struct netifc_links *t);
void netifc_addrs_free(struct netifc_addrs *t);
struct netifc_counters *netifc_counters_push(struct netifc_counters_table *t);
/* Room for more records without growing again: 0 or -ENOMEM. */
int netifc_counters_reserve(struct netifc_counters_table *t, size_t more);
void netifc_counters_free(struct netifc_counters_table *t);

/* Shared address rules (addr.c). */
size_t netifc_family_len(int family);
int netifc_ip6_needs_zone(const uint8_t addr[16]);
int netifc_addr_needs_zone(const struct netifc_addr *a);
/* The RT_SCOPE_* Linux gives a->local, address or group (for backends the kernel tells none). */
uint8_t netifc_addr_scope(const struct netifc_addr *a);
void netifc_addr_finish(struct netifc_addr *a, const char *zone_name);
const struct netifc_link *netifc_links_find(const struct netifc_links *t, int32_t index,
					    size_t *hint);
const struct netifc_link *netifc_links_find_name(const struct netifc_links *t, const char *name,
						 size_t *hint);
int netifc_hwaddr_set(struct netifc_link *l, const void *hw, size_t len);
int netifc_brd_set(struct netifc_link *l, const void *hw, size_t len);

#endif
