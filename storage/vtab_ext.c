// SPDX-License-Identifier: GPL-2.0
/* vtab_ext.c - the `events` table of vtab.c, built for the loadable extension (ext.c). */
#define MR_SQLITE_EXTENSION 1
#include "vtab.c"
