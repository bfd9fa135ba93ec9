/*
 * records.h -- the Interface and Addr types (records.c), as module.c adds
 * them: the types and the functions pickle rebuilds them with.
 */
#ifndef NETIFC_RECORDS_H
#define NETIFC_RECORDS_H

#include "python/record.h"

extern const struct netifc_record_type netifc_iface_record, netifc_addr_record;
extern PyMethodDef netifc_records_functions[];

#endif
