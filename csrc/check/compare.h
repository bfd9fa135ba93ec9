/* compare.h -- the rtnetlink and getifaddrs backends against each other. */
#ifndef NETIFC_CHECK_COMPARE_H
#define NETIFC_CHECK_COMPARE_H

#include "core/netifc.h"

/* 0 when both backends agree on every link, address and group; else 1 (each difference printed). */
int compare_backends(void);

#endif
