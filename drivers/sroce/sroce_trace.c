// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_trace.c - the one place the tracepoints of sroce_trace.h are
 * instantiated.
 */
#define CREATE_TRACE_POINTS
#include "sroce_trace.h"
