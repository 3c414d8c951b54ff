/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CUnit driver: registers every suite listed in suites.h and runs them. */
#include <stdio.h>
#include <CUnit/Basic.h>

#include "suites.h"

int main(void)
{
	unsigned failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
#define SP_SUITE_REG_(name)                                                                        \
	if (sp_test_register_##name() != 0) {                                                      \
		fprintf(stderr, "cannot register suite %s\n", #name);                              \
		CU_cleanup_registry();                                                             \
		return 2;                                                                          \
	}
	SP_SUITES(SP_SUITE_REG_)
#undef SP_SUITE_REG_
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
