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

#endif
