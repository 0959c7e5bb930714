/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - the entry point each fuzz target defines (libFuzzer's), called by libFuzzer in
 * a fuzzing build (-DMR_FUZZ=ON, clang) and by fuzz_main.c over the committed corpus in
 * every other build, so each input that once found a bug stays a regression test.
 * A target aborts on a broken contract; a crash or a sanitizer report is a finding too.
 */
#ifndef MR_FUZZ_H
#define MR_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
