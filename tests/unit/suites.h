/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One CUnit suite per module; main.c registers them all. */
#ifndef SYMPROF_TESTS_SUITES_H
#define SYMPROF_TESTS_SUITES_H

#include <CUnit/CUnit.h>

#define SP_SUITES(X)                                                                               \
	X(core)                                                                                    \
	X(formats)                                                                                 \
	X(cg)                                                                                      \
	X(lines)                                                                                   \
	X(static)                                                                                  \
	X(fit)                                                                                     \
	X(aprof)                                                                                   \
	X(flame)                                                                                   \
	X(igprof)                                                                                  \
	X(pprof)                                                                                   \
	X(proto)                                                                                   \
	X(report)                                                                                  \
	X(dwcache)

#define SP_SUITE_DECL_(name) int sp_test_register_##name(void);
SP_SUITES(SP_SUITE_DECL_)
#undef SP_SUITE_DECL_

#endif
