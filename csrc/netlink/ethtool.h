/*
 * ethtool.h -- a link's speed and duplex, asked on demand (ethtool.c).
 */
#ifndef NETIFC_ETHTOOL_H
#define NETIFC_ETHTOOL_H

#include "netlink/stats_parse.h"

/*
 * The settings of link `index` (named `name`, for the ioctl): 0 with what is
 * known (NETIFC_SPEED_UNKNOWN / NETIFC_DUPLEX_UNKNOWN where nothing is: a
 * link without the driver support, a virtual link, one that is gone), or a
 * negative errno when the OS fails.
 */
int netifc_link_settings(struct netifc_call *c, int32_t index, const char *name,
			 struct netifc_link_settings *out);

#endif
