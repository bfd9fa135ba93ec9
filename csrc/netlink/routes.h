/* routes.h -- what a routes call asks the kernel (routes.c). */
#ifndef NETIFC_NETLINK_ROUTES_H
#define NETIFC_NETLINK_ROUTES_H

#include "netlink/route_parse.h"

/*
 * The routes of one family (AF_UNSPEC: IPv4 and IPv6) and
 * one table, in kernel order, each link named; and the route the kernel
 * would choose for dst (-ENETUNREACH, -EHOSTUNREACH, ... when none).
 */
int netifc_routes_dump(struct netifc_call *c, int family, uint32_t table, struct netifc_routes *out);
int netifc_route_get(struct netifc_call *c, int family, const uint8_t *dst, int32_t index,
		     struct netifc_routes *out);

/*
 * A socket the kernel tells of every route change (RTNLGRP_IPV4_ROUTE and
 * RTNLGRP_IPV6_ROUTE), SOCK_CLOEXEC | SOCK_NONBLOCK, made in ns (NULL: the
 * calling thread's namespace): its descriptor, or a negative errno (-EBADF:
 * ns is closed).  Its datagrams are only signs that the routes changed;
 * the caller reads the routes again, and owns and closes the socket.
 */
struct netifc_ns;
int netifc_route_watch_open(struct netifc_ns *ns);

#endif
