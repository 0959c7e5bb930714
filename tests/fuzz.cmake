# SPDX-License-Identifier: GPL-2.0
# Fuzz targets (tests/fuzz/): the chunk decoder and the store opener. In every build each
# is linked with fuzz_main.c and replays its committed corpus as the CTest test fuzz.X.
# With -DMR_FUZZ=ON (clang: CC=clang) they are libFuzzer binaries instead, built with the
# storage sources compiled in, instrumented for coverage and with ASan+UBSan:
#   CC=clang cmake -S . -B build-fuzz -DMR_FUZZ=ON
#   cmake --build build-fuzz --target fuzz_chunk_decode fuzz_store_open
#   build-fuzz/tests/fuzz_chunk_decode -max_total_time=600 NEW_DIR tests/fuzz/corpus/chunk_decode
# fuzz_store_open opens each input in memory (mr_store_open_image()); most of its time is
# SQLite's allocations under ASan, which these options halve (short malloc stacks: rerun
# a finding without them for whole ones):
#   ASAN_OPTIONS=quarantine_size_mb=16:max_malloc_fill_size=0:malloc_context_size=2
# Minimize into the committed corpus with -merge=1 (CORPUS_DIR first, then NEW_DIR).
option(MR_FUZZ "Build the fuzz targets as libFuzzer binaries (needs clang)" OFF)
set(_fuzz_dir ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
set(_fuzz_storage event.c crc32c.c codec.c store.c store_check.c writer.c reader.c vtab.c)
list(TRANSFORM _fuzz_storage PREPEND ${PROJECT_SOURCE_DIR}/storage/)
foreach(_t chunk_decode store_open)
  if(MR_FUZZ)
    add_executable(fuzz_${_t} ${_fuzz_dir}/fuzz_${_t}.c ${_fuzz_storage})
    target_include_directories(fuzz_${_t} PRIVATE ${PROJECT_SOURCE_DIR}/storage ${_fuzz_dir})
    target_compile_options(fuzz_${_t} PRIVATE -fsanitize=fuzzer,address,undefined -g)
    target_link_options(fuzz_${_t} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(fuzz_${_t} PRIVATE mr_base PkgConfig::SQLITE3 PkgConfig::LZ4)
  else()
    add_executable(fuzz_${_t} ${_fuzz_dir}/fuzz_${_t}.c ${_fuzz_dir}/fuzz_main.c)
    target_include_directories(fuzz_${_t} PRIVATE ${_fuzz_dir})
    target_link_libraries(fuzz_${_t} PRIVATE mr_storage PkgConfig::LZ4)
    add_test(NAME fuzz.${_t} COMMAND fuzz_${_t} ${_fuzz_dir}/corpus/${_t})
    set_tests_properties(fuzz.${_t} PROPERTIES LABELS "quick" TIMEOUT 600)
  endif()
endforeach()
