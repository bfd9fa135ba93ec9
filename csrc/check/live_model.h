/*
 * live_model.h -- the live tables against a model (live_model.c), steps
 * drawn from a source: random numbers (live_check.c) or a fuzzer's input
 * (csrc/fuzz/fuzz_live.c).
 */
#ifndef NETIFC_CHECK_LIVE_MODEL_H
#define NETIFC_CHECK_LIVE_MODEL_H

#include <stdint.h>

/* The next draw into *v: 0, or -1 when there are no more. */
typedef int (*lm_draw)(void *ctx, uint32_t *v);

/*
 * Up to steps steps (fewer when the draws run out), every one checked:
 * the failures found (each printed to stderr; it stops after 20).
 */
long lm_run(lm_draw draw, void *ctx, long steps);

#endif
