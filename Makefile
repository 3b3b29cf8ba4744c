# setops: PGXS build.
#
#   make                 build (with CUDA when nvcc is found)
#   make WITH_CUDA=no    CPU-only build: same behaviour, no devices
#   make install         install into pg_config's directories
#   make installcheck    pg_regress suites (against a running server with
#                        a build for the tests: SETOPS_TEST_HOOKS=yes below;
#                        SETOPS_INSTALLED_HOOKS=no: those that need none)
#   make unittest        C unit tests of the CPU engine
#
# CUDA_HOME (default /usr/local/cuda) locates nvcc.  engine/gpu/*.cu are compiled
# for sm_80 and sm_90 plus PTX into a static archive that is linked, with
# the static CUDA runtime, into setops.so: the library loads on machines
# without a GPU driver.  The archive is linked through SHLIB_LINK rather
# than OBJS so that PGXS does not try to make LLVM bitcode of CUDA objects.

EXTENSION = setops
MODULE_big = setops
# 0.2 is what 0.1 + the upgrade adds: the upgrade script is its parts, in
# order, and the fresh install script is 0.1's followed by the upgrade, so
# the two paths cannot drift apart (CI compares their members anyway).
UPGRADE_0_2 = extension/install/counts.sql extension/install/packed_operators.sql \
	$(wildcard extension/install/packed_index.sql)
# 0.3 likewise: 0.2's script, then the 0.2 -> 0.3 upgrade's parts.
UPGRADE_0_3 = extension/install/agg_state.sql
# 0.4 likewise: 0.3's script, then the 0.3 -> 0.4 upgrade's parts.
UPGRADE_0_4 = extension/install/service_stats.sql \
	extension/install/similarity_batch.sql
# issue 34's Jaccard distance (<%>), after the other 0.4 parts
UPGRADE_0_4 += extension/install/similarity.sql
# issue 32: what auto learnt (after the other 0.4 parts)
UPGRADE_0_4 += extension/install/auto_estimates.sql
DATA = extension/setops--0.1.sql
DATA_built = extension/setops--0.1--0.2.sql extension/setops--0.2.sql \
	extension/setops--0.2--0.3.sql extension/setops--0.3.sql \
	extension/setops--0.3--0.4.sql extension/setops--0.4.sql
PGFILEDESC = "setops - GPU-accelerated multiset operations on sorted integer arrays"

# One folder per layer (docs/design.md, "Source layout"); scripts/check_layers.sh
# fails the build's tests when an #include points up a layer.
OBJS = \
	extension/module.o \
	extension/funcs/setop_funcs.o \
	extension/funcs/count_funcs.o \
	extension/funcs/sort_funcs.o \
	extension/funcs/batch_funcs.o \
	extension/funcs/agg_funcs.o \
	extension/funcs/agg_state.o \
	extension/funcs/packed_type.o \
	extension/funcs/packed_index.o \
	extension/funcs/device_funcs.o \
	extension/args/array_io.o \
	extension/args/packed_args.o \
	extension/args/stored_value.o \
	extension/args/keys_form.o \
	extension/args/mapped_buffer.o \
	extension/exec/dispatch.o \
	extension/exec/batch.o \
	extension/exec/batch_readers.o \
	extension/exec/aggregate.o \
	extension/exec/devices.o \
	extension/service/client.o \
	extension/service/client_batch.o \
	extension/service/client_stage.o \
	extension/service/worker.o \
	extension/service/worker_batch.o \
	extension/service/worker_stage.o \
	extension/service/worker_exec.o \
	extension/service/worker_split.o \
	extension/service/device_cache.o \
	extension/service/gpu_device.o \
	extension/service/emulated_device.o \
	$(ENGINE_SRCS:.c=.o) \
	engine/cpu/packed_codec.o \
	engine/cpu/copy_threads.o

# the repository root (engine/...) and extension/ (setops.h, layer/...)
PG_CPPFLAGS = -I$(srcdir) -I$(srcdir)/extension
# a function a layer does not include the header of is an error, not a guess
PG_CFLAGS = -Werror=implicit-function-declaration

REGRESS_OPTS = --inputdir=test/regress --outputdir=test/regress
REGRESS = setops_basic setops_pairs setops_sort setops_agg setops_errors setops_packed setops_cache setops_devices setops_batch \
	setops_counts setops_packed_index setops_intarray setops_similarity_batch setops_similarity_cache
# issue 34's Jaccard distance
REGRESS += setops_jaccard_distance
# Suites that declare the test hooks: they need a build for the tests
# installed.  make installcheck SETOPS_INSTALLED_HOOKS=no runs the others,
# against any build (the Debian package's check: scripts/deb_check.sh).
REGRESS_HOOKS = setops_cache
ifeq ($(SETOPS_INSTALLED_HOOKS),no)
REGRESS := $(filter-out $(REGRESS_HOOKS),$(REGRESS))
endif

PG_CONFIG ?= pg_config
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
WITH_CUDA ?= $(if $(wildcard $(NVCC)),yes,no)

ENGINE_SRCS = engine/cpu/setop_engine.c engine/cpu/simd_avx2.c engine/cpu/sort.c \
	engine/cpu/segmented.c
ENGINE_HDRS = $(wildcard engine/cpu/*.h engine/common/*.h)

# copy_threads.c starts helper threads
SHLIB_LINK += -pthread

ifeq ($(WITH_CUDA),yes)
GPU_LIB = engine/gpu/libsetops_gpu.a
CU_SRCS = $(wildcard engine/gpu/*.cu)
CU_OBJS = $(CU_SRCS:.cu=.o)
NVCC_FLAGS ?= -O3 -std=c++17 -Xcompiler -fPIC -Xcompiler -fvisibility=hidden \
	-gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90
SHLIB_LINK += $(GPU_LIB) -L$(CUDA_HOME)/lib64 -lcudart_static -lstdc++ -lrt -ldl -lpthread \
	-Wl,--exclude-libs,libcudart_static.a
else
OBJS += engine/gpu/gpu_stub.o
endif

EXTRA_CLEAN = extension/test_hooks.h engine/gpu/*.o engine/gpu/*.a test/regress/results test/regress/regression.diffs test/regress/regression.out test/unit/engine_test test/unit/keyrank_test test/unit/segd_test test/unit/chunks_test test/unit/packed_test test/unit/packed_fuzz test/unit/copy_test test/unit/count_split_test \
	test/bench/engine_bench test/bench/fault_probe \
	test/gpu/kernel_test test/gpu/kernel_bench test/gpu/packed_decode_test test/gpu/packed_bench \
	test/gpu/multi_device_test test/gpu/batch_test \
	test/gpu/packed_encode_test test/gpu/device_hog test/gpu/cache_put_bench test/gpu/*.o

# Test hooks (SQL-callable functions the suites declare for themselves, in
# args/stored_value.c, args/keys_form.c, funcs/agg_funcs.c, batch_funcs.c
# and device_funcs.c) exist only in builds for the tests:
# make SETOPS_TEST_HOOKS=yes (scripts/test.sh and the GPU machine's bundle
# do; make installcheck needs such a build installed).  The choice sticks
# in extension/test_hooks.h until SETOPS_TEST_HOOKS=no or make clean;
# switching rebuilds those files.  A fresh tree builds without.
HOOKS_OFF = /* a build without the test hooks */
ifdef SETOPS_TEST_HOOKS
ifeq ($(SETOPS_TEST_HOOKS),yes)
HOOKS_LINE = \#define SETOPS_TEST_HOOKS 1
else
HOOKS_LINE = $(HOOKS_OFF)
endif
ifneq ($(shell cat extension/test_hooks.h 2>/dev/null),$(HOOKS_LINE))
$(shell printf '%s\n' '$(HOOKS_LINE)' > extension/test_hooks.h)
endif
else ifeq ($(wildcard extension/test_hooks.h),)
$(shell printf '%s\n' '$(HOOKS_OFF)' > extension/test_hooks.h)
endif

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

extension/args/stored_value.o extension/funcs/agg_funcs.o extension/args/keys_form.o \
extension/funcs/device_funcs.o extension/funcs/batch_funcs.o \
extension/args/stored_value.bc extension/funcs/agg_funcs.bc extension/args/keys_form.bc \
extension/funcs/device_funcs.bc extension/funcs/batch_funcs.bc: \
	extension/test_hooks.h
# the kernels' tile shapes, which a test hook in keys_form.c reports
extension/args/keys_form.o extension/args/keys_form.bc: engine/common/tile_geometry.h

extension/setops--0.1--0.2.sql: $(UPGRADE_0_2)
	{ echo '/* setops--0.1--0.2.sql: from 0.1 to 0.2 (made from extension/install/) */'; \
	  echo '\\echo Use "ALTER EXTENSION setops UPDATE TO '"'"'0.2'"'"'" to load this file. \\quit'; \
	  cat $^; } > $@

extension/setops--0.2.sql: extension/setops--0.1.sql extension/setops--0.1--0.2.sql
	{ sed -e '1s/.*/\/* setops--0.2.sql: the SQL surface of setops 0.2 (0.1, then what 0.2 adds) *\//' \
	      extension/setops--0.1.sql; \
	  cat $(UPGRADE_0_2); } > $@

extension/setops--0.2--0.3.sql: $(UPGRADE_0_3)
	{ echo '/* setops--0.2--0.3.sql: from 0.2 to 0.3 (made from extension/install/) */'; \
	  echo '\\echo Use "ALTER EXTENSION setops UPDATE TO '"'"'0.3'"'"'" to load this file. \\quit'; \
	  cat $^; } > $@

extension/setops--0.3.sql: extension/setops--0.2.sql $(UPGRADE_0_3)
	{ sed -e '1s/.*/\/* setops--0.3.sql: the SQL surface of setops 0.3 (0.2, then what 0.3 changes) *\//' \
	      extension/setops--0.2.sql; \
	  cat $(UPGRADE_0_3); } > $@

extension/setops--0.3--0.4.sql: $(UPGRADE_0_4)
	{ echo '/* setops--0.3--0.4.sql: from 0.3 to 0.4 (made from extension/install/) */'; \
	  echo '\\echo Use "ALTER EXTENSION setops UPDATE TO '"'"'0.4'"'"'" to load this file. \\quit'; \
	  cat $^; } > $@

extension/setops--0.4.sql: extension/setops--0.3.sql $(UPGRADE_0_4)
	{ sed -e '1s/.*/\/* setops--0.4.sql: the SQL surface of setops 0.4 (0.3, then what 0.4 changes) *\//' \
	      extension/setops--0.3.sql; \
	  cat $(UPGRADE_0_4); } > $@


$(OBJS): $(ENGINE_HDRS) $(wildcard extension/*.h extension/*/*.h) engine/gpu/setops_gpu.h

ifeq ($(WITH_CUDA),yes)
$(shlib): $(GPU_LIB)

$(GPU_LIB): $(CU_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

engine/gpu/%.o: engine/gpu/%.cu $(wildcard engine/gpu/*.h engine/gpu/*.cuh engine/common/*.h)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

# GPU test and benchmark runners (run them on a GPU machine): each links the
# GPU archive and, where it checks answers against it, the CPU engine or the
# packed codec built for the host.
NVCC_TEST_FLAGS ?= -O3 -std=c++17 -gencode arch=compute_90,code=sm_90
test/gpu/engine_%.o: engine/cpu/%.c $(ENGINE_HDRS)
	$(CC) -O2 -c -o $@ $<
GPU_TEST_ENGINE = $(patsubst engine/cpu/%.c,test/gpu/engine_%.o,$(ENGINE_SRCS))
GPU_TEST_PACKED = test/gpu/engine_packed_codec.o
GPU_TEST_HDRS = $(wildcard test/gpu/*.h test/common/*.h) engine/cpu/packed_codec.h $(ENGINE_HDRS)

# the fault injection of engine/gpu/setops_api.cu exists only in this build
# of it, linked before the archive so that the archive's is not used
test/gpu/setops_api_hooks.o: engine/gpu/setops_api.cu $(wildcard engine/gpu/*.h engine/gpu/*.cuh engine/common/*.h)
	$(NVCC) $(NVCC_FLAGS) -DSETOPS_GPU_TEST_HOOKS -c $< -o $@
test/gpu/kernel_test: test/gpu/setops_api_hooks.o
test/gpu/kernel_test: GPU_TEST_LINK = test/gpu/setops_api_hooks.o $(GPU_TEST_ENGINE)
test/gpu/multi_device_test test/gpu/batch_test: GPU_TEST_LINK = $(GPU_TEST_ENGINE)
test/gpu/packed_decode_test test/gpu/packed_encode_test test/gpu/packed_bench: GPU_TEST_LINK = $(GPU_TEST_PACKED)
GPU_TESTS = test/gpu/kernel_test test/gpu/multi_device_test test/gpu/batch_test test/gpu/kernel_bench \
	test/gpu/count_many_test \
	test/gpu/packed_decode_test test/gpu/packed_encode_test test/gpu/packed_bench
# the GPU's launch size, GPU_CHUNK of setops_api.cu (not in a header), for
# the tests whose inputs cross it (test/gpu/ref_check.h)
GPU_CHUNK_LOG2 := $(shell sh test/gpu/chunk_log2.sh gpu)
test/gpu/kernel_test test/gpu/multi_device_test test/gpu/batch_test: GPU_TEST_DEFS = \
	-DSETOPS_TEST_GPU_CHUNK_LOG2=$(GPU_CHUNK_LOG2)
$(GPU_TESTS): test/gpu/%: test/gpu/%.cu $(GPU_TEST_HDRS) $(GPU_LIB) $(GPU_TEST_ENGINE) $(GPU_TEST_PACKED) engine/gpu/setops_api.cu
	$(NVCC) $(NVCC_TEST_FLAGS) $(GPU_TEST_DEFS) -o $@ $< $(GPU_TEST_LINK) $(GPU_LIB)

test/gpu/device_hog: test/gpu/device_hog.cu
	$(NVCC) $(NVCC_TEST_FLAGS) -o $@ $<

test/gpu/cache_put_bench: test/gpu/cache_put_bench.cu
	$(NVCC) $(NVCC_TEST_FLAGS) -o $@ $<

gpu-tests: $(GPU_TESTS) test/gpu/device_hog test/gpu/cache_put_bench
.PHONY: gpu-tests
endif

# C unit tests of the CPU engine and the packed codec: no PostgreSQL needed.
# The codec's tests and its fuzzer run under AddressSanitizer and UBSan.
UNIT_SANITIZE ?= -fsanitize=address,undefined -fno-sanitize-recover=undefined
PACKED_SRCS = engine/cpu/packed_codec.c
PACKED_HDRS = engine/cpu/packed_codec.h engine/common/packed_format.h test/common/testgen.h test/common/testcheck.h

test/unit/engine_test: test/unit/engine_test.c test/common/testgen.h test/common/testcheck.h $(ENGINE_SRCS) $(ENGINE_HDRS)
	$(CC) -O2 -g -Wall -o $@ test/unit/engine_test.c $(ENGINE_SRCS)

# the large-input reference (test/common/keyrank_ref.h) against the textbook,
# and the CPU engine against it where the engine cuts its inputs
test/unit/keyrank_test: test/unit/keyrank_test.c test/common/keyrank_ref.h test/common/runsgen.h test/common/testgen.h test/common/testcheck.h test/common/textbook.h $(ENGINE_SRCS) $(ENGINE_HDRS)
	$(CC) -O2 -g -Wall -o $@ test/unit/keyrank_test.c $(ENGINE_SRCS)

test/unit/segd_test: test/unit/segd_test.c engine/common/segd.h test/common/testgen.h test/common/testcheck.h test/common/textbook.h $(ENGINE_SRCS) $(ENGINE_HDRS)
	$(CC) -O2 -g -Wall -fsanitize=address,undefined -o $@ test/unit/segd_test.c $(ENGINE_SRCS)

test/unit/chunks_test: test/unit/chunks_test.c engine/common/chunks.h engine/common/balanced_path.h test/common/testgen.h test/common/testcheck.h test/common/textbook.h
	$(CC) -O1 -g -Wall $(UNIT_SANITIZE) -o $@ test/unit/chunks_test.c

test/unit/packed_test: test/unit/packed_test.c $(PACKED_SRCS) $(PACKED_HDRS)
	$(CC) -O1 -g -Wall $(UNIT_SANITIZE) -o $@ test/unit/packed_test.c $(PACKED_SRCS)

test/unit/packed_fuzz: test/unit/packed_fuzz.c $(PACKED_SRCS) $(PACKED_HDRS)
	$(CC) -O1 -g -Wall $(UNIT_SANITIZE) -o $@ test/unit/packed_fuzz.c $(PACKED_SRCS)

test/unit/copy_test: test/unit/copy_test.c engine/cpu/copy_threads.c engine/cpu/copy_threads.h
	$(CC) -O1 -g -Wall $(UNIT_SANITIZE) -pthread -o $@ test/unit/copy_test.c engine/cpu/copy_threads.c

# a count cut into parts for several GPUs, against the whole
test/unit/count_split_test: test/unit/count_split_test.c engine/common/count_split.h engine/common/setop_kind.h test/common/testgen.h test/common/testcheck.h
	$(CC) -O1 -g -Wall $(UNIT_SANITIZE) -o $@ test/unit/count_split_test.c

unittest: test/unit/engine_test test/unit/keyrank_test test/unit/segd_test test/unit/chunks_test test/unit/packed_test test/unit/packed_fuzz test/unit/copy_test test/unit/count_split_test
	test/unit/engine_test
	test/unit/keyrank_test
	test/unit/segd_test
	test/unit/chunks_test
	test/unit/packed_test
	test/unit/packed_fuzz 20000
	test/unit/copy_test
	test/unit/count_split_test

test/bench/engine_bench: test/bench/engine_bench.c test/common/testclock.h $(ENGINE_SRCS) $(ENGINE_HDRS)
	$(CC) -O2 -Wall -o $@ test/bench/engine_bench.c $(ENGINE_SRCS)

test/bench/fault_probe: test/bench/fault_probe.c test/common/testclock.h
	$(CC) -O2 -Wall -o $@ test/bench/fault_probe.c

.PHONY: unittest

# The PGXN distribution: setops-<version>.zip of the committed tree (HEAD),
# each path under setops-<version>/, <version> being the control file's
# default_version as SemVer (0.4 -> 0.4.0, META.json's version;
# scripts/check_meta.py checks that they agree).  Uncommitted changes are
# not in it: commit first.
DIST_VERSION := $(shell sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" $(srcdir)/setops.control | \
	awk -F. '{ v = $$0; for (i = NF; i < 3; i++) v = v ".0"; print v }')
DIST = setops-$(DIST_VERSION).zip
dist:
	@git -C $(srcdir) diff --quiet HEAD -- || echo "make dist: uncommitted changes are not in $(DIST) (it packs HEAD)" >&2
	git -C $(srcdir) archive --format zip --prefix setops-$(DIST_VERSION)/ -o $(abspath $(DIST)) HEAD
	@echo "made $(DIST) (from $$(git -C $(srcdir) rev-parse --short HEAD))"
.PHONY: dist
