# sroce top-level Makefile (kernel module rules live in ./Kbuild and
# drivers/sroce/Kbuild, the provider's in userspace/Makefile).
#
#   make [W=1] [KDIR=...]  build drivers/sroce/sroce.ko, userspace/ and tests/bin/
#   make KVER=6.12.95+deb12-amd64 [vmtest]  the same against Debian 13's 6.12
#                          (bookworm-backports; scripts/deps --kver KVER)
#   make install           module to /lib/modules/$(KVER)/extra + depmod,
#                          provider + sroce.driver for libibverbs
#   make deb               sroce-dkms and sroce-provider .debs in .deb-build/
#                          (dpkg-buildpackage; the tools from scripts/deps
#                          --deb), then lintian on them
#   make clean
#   make kunit [SUITES='sroce_psn*']  KUnit suites in QEMU (scripts/kunit):
#                          those matching the glob SUITES (empty: all)
#   make vmtest [TESTS=t-10-sroce-perftest.sh]  tests/run in the VM (scripts/vm)
#   make check [W=]        CI (.ci/run), ~31 min warm: deps, all (W=1 by
#                          default), CI_TESTS in the VM on Debian's kernel
#                          (TEST_SCOPE=ci), the packages (scripts/deb-test),
#                          then the debug kernel: KUnit on it and
#                          $(DEBUG_TESTS) in its VM; then deps, sroce.ko,
#                          packages and $(KVER_TESTS) on $(CHECK_KVER); prints
#                          each stage's time and ends with one line
#                          "N passed, N failed in N s (M min)"
#   make check-quick       ~3 min: all W=1, kunit, $(QUICK_TESTS) (quick scope)
#   make check-full        everything: kunit, every test at full scope,
#                          vmtest-pair, packages, debug kernel, 6.12
#   make check-stock       deps, all, kunit, vmtest, vmtest-pair, deb-test
#                          (Debian's kernel only)
#   make vmtest-pair       NVMe and NFS over RDMA between two VMs, sroce in
#                          one and rdma_rxe in the other (scripts/vm-pair)
#   make debug-kernel      build the debug guest kernel (KASAN, lockdep,
#                          DEBUG_OBJECTS, kmemleak) and sroce.ko against it
#                          (scripts/debug-kernel; output in .debug-build/)
#   make kunit-debug       the KUnit suites on the debug kernel (all of
#                          them: 6.1 cannot filter suites loaded from a
#                          module, so SUITES does not apply)
#   make vmtest-debug [TESTS=...]  tests/run in the VM on the debug kernel
#   make check-debug [TESTS=...]   deps, all, kunit-debug, vmtest-debug (all
#                          tests unless TESTS is given); one summary line
#   make check-kver [CHECK_KVER=...] [TESTS=...|all]  deps, all, sroce.ko
#                          against $(CHECK_KVER) (6.12) and tests in its VM
#   make soak [SOAK_SECS=1800] [SOAK_SEED=N]  the stress soak
#                          (tests/t-86-soak.sh) for SOAK_SECS seconds in a
#                          boot of its own; not part of make check
#   make demo              scripts/demo

ifneq ($(KBUILD_EXTMOD),)
# Read by Kbuild only if ./Kbuild is missing.  (Not keyed on KERNELRELEASE:
# DKMS runs `make KERNELRELEASE=... modules` here.)
obj-m += drivers/sroce/
else

# ---- build ------------------------------------------------------------------
# KVER=6.12.95+deb12-amd64 (headers from `scripts/deps --kver KVER`) builds
# against that kernel's headers, and make vmtest then boots it.
ifneq ($(KVER),)
KDIR ?= /lib/modules/$(KVER)/build
VM_KVER := SROCE_KVER=$(KVER)
endif
# The host may run another kernel than the 6.1 target: fall back to its headers.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    /lib/modules/6.1.0-57-amd64/build)
KVER ?= $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
		$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
KBUILD_ARGS = -C $(KDIR) M=$(CURDIR) CONFIG_SROCE=m $(if $(W),W=$(W))

all: modules userspace testprogs

modules:
	$(MAKE) $(KBUILD_ARGS) modules

userspace:
	if [ -f userspace/Makefile ]; then $(MAKE) -C userspace; fi

# verbs programs the VM tests run (tests/src/*.c -> tests/bin/)
testprogs: userspace
	$(MAKE) -C tests/src

clean:
	$(MAKE) $(KBUILD_ARGS) clean
	rm -rf .debug-build .build-*
	if [ -f userspace/Makefile ]; then $(MAKE) -C userspace clean; fi
	$(MAKE) -C tests/src clean

# ---- install ----------------------------------------------------------------
PROVIDER_DIR ?= /usr/lib/x86_64-linux-gnu/libibverbs
DRIVER_DIR ?= /etc/libibverbs.d

install: all
	install -D -m 644 drivers/sroce/sroce.ko $(DESTDIR)/lib/modules/$(KVER)/extra/sroce.ko
	[ -n "$(DESTDIR)" ] || depmod -a $(KVER)
	install -D -m 644 userspace/libsroce-rdmav34.so $(DESTDIR)$(PROVIDER_DIR)/libsroce-rdmav34.so
	install -D -m 644 userspace/sroce.driver $(DESTDIR)$(DRIVER_DIR)/sroce.driver

# ---- Debian packages ----------------------------------------------------------
# Built from a copy of the files git knows (tracked, or new and not
# ignored; outside a git checkout: the tree without build outputs) in
# $(DEB_DIR)/src: the .debs land in $(DEB_DIR), outside the tree.
DEB_DIR ?= $(CURDIR)/.deb-build

deb:
	scripts/deps --deb
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/src
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
		xargs -0 sh -c 'for f; do [ ! -e "$$f" ] || printf "%s\0" "$$f"; done' sh | \
		xargs -0 cp -P --parents -t $(DEB_DIR)/src; \
	else \
		tar -c --exclude=./.deb-build --exclude=./.debug-build --exclude='*.o' \
			--exclude='*.ko' --exclude='*.so' --exclude=./tests/bin . | \
			tar -x -C $(DEB_DIR)/src; \
	fi
	cd $(DEB_DIR)/src && dpkg-buildpackage -us -uc -b
	lintian --fail-on error $(DEB_DIR)/*.changes

# ---- tests ------------------------------------------------------------------
# Seconds: the whole VM run, one tests/t-*.sh,
# one perftest or pingpong run.
VM_TIMEOUT ?= 3600
TEST_TIMEOUT ?= 1200
PAIR_TIMEOUT ?= 60
TESTS ?=
# How much of each test runs (tests/lib.sh test_scope): quick, ci or full.
# make vmtest, check-full, check-stock and check-debug run everything
# (full); make check runs CI_TESTS at ci scope, make check-quick
# QUICK_TESTS at quick scope.
TEST_SCOPE ?= full
# The stock VM tests of make check (CI); check-full runs them all.
CI_TESTS ?= t-00-harness.sh t-10-sroce-perftest.sh t-11-loopback.sh t-12-devname.sh \
	t-16-starved-cpu.sh \
	t-20-sroce-rxe-interop.sh t-30-pingpong.sh t-32-srq.sh t-33-ext.sh \
	t-34-xrc.sh t-40-verbs-errno.sh t-45-nvme-rdma.sh \
	t-50-malformed.sh t-60-protection.sh t-65-hostile-user.sh \
	t-70-random-data.sh t-80-cc.sh t-86-soak.sh t-90-teardown.sh \
	t-92-trace.sh
# The VM tests of make check-quick: pingpong, perftest basics, protection,
# teardown, malformed packets.
QUICK_TESTS ?= t-30-pingpong.sh t-10-sroce-perftest.sh t-60-protection.sh \
	t-90-teardown.sh t-50-malformed.sh
# The tests make check runs on the debug kernel (missing ones are skipped).
DEBUG_TESTS ?= t-55-fuzz.sh t-85-loss-soak.sh
# The debug kernel is slower (KASAN, lockdep under TCG): more time per test,
# and more retransmits per lost packet allowed in t-85 (3 on the stock kernel).
DEBUG_TEST_TIMEOUT ?= 2400
DEBUG_LOSS_RATIO ?= 6
# The other kernel CI builds sroce for and tests it on (Debian 13's 6.12,
# from bookworm-backports; empty: none), and the tests it runs there:
# KVER_TESTS in make check, KVER_FULL_TESTS in check-full and check-kver.
CHECK_KVER ?= 6.12.95+deb12-amd64
KVER_TESTS ?= t-00-harness.sh t-12-devname.sh t-30-pingpong.sh \
	t-45-nvme-rdma.sh t-60-protection.sh t-90-teardown.sh
KVER_FULL_TESTS ?= t-00-harness.sh t-10-sroce-perftest.sh t-12-devname.sh \
	t-30-pingpong.sh t-34-xrc.sh t-45-nvme-rdma.sh t-60-protection.sh \
	t-70-random-data.sh t-86-soak.sh t-90-teardown.sh

CHECK_ENV = W=$(W) VM_TIMEOUT=$(VM_TIMEOUT) TEST_TIMEOUT=$(TEST_TIMEOUT) \
	DEBUG_TEST_TIMEOUT=$(DEBUG_TEST_TIMEOUT) PAIR_TIMEOUT=$(PAIR_TIMEOUT) \
	DEBUG_LOSS_RATIO=$(DEBUG_LOSS_RATIO)

# make kunit SUITES='sroce_psn*': only the suites matching the glob
SUITES ?=

kunit:
	scripts/kunit $(if $(SUITES),'$(SUITES)')

vmtest:
	$(VM_KVER) scripts/vm --timeout $(VM_TIMEOUT) env TEST_TIMEOUT=$(TEST_TIMEOUT) \
		PAIR_TIMEOUT=$(PAIR_TIMEOUT) TEST_SCOPE=$(TEST_SCOPE) tests/run $(TESTS)

vmtest-pair:
	scripts/vm-pair tests/tools/pair-ulp.sh a -- tests/tools/pair-ulp.sh b

# CI (.ci/run): the build, the KUnit suites on the debug kernel, CI_TESTS
# at ci scope, the packages, t-55 and t-85 on the debug kernel (ci scope:
# fewer fuzzed packets), KVER_TESTS on 6.12 (quick scope).
check: W ?= 1
check:
	$(CHECK_ENV) TEST_SCOPE=ci STOCK_TESTS="$(CI_TESTS)" \
		DEBUG_TESTS="$(DEBUG_TESTS)" KVER_TESTS="$(KVER_TESTS)" \
		scripts/check --vmtest --deb --debug $(if $(CHECK_KVER),--kver $(CHECK_KVER))

# Everyday work: the build, KUnit (stock KUnit kernel; SUITES=...), and
# QUICK_TESTS at quick scope.
check-quick: W ?= 1
check-quick:
	$(CHECK_ENV) TEST_SCOPE=quick STOCK_TESTS="$(or $(TESTS),$(QUICK_TESTS))" \
		SUITES="$(SUITES)" scripts/check --kunit --vmtest

# Everything: KUnit, every stock test at full scope, the two-VM ULPs, the
# packages, the debug kernel's KUnit and DEBUG_TESTS at full scope,
# KVER_FULL_TESTS on 6.12.
check-full: W ?= 1
check-full:
	$(CHECK_ENV) TEST_SCOPE=full DEBUG_TESTS="$(DEBUG_TESTS)" \
		KVER_TESTS="$(KVER_FULL_TESTS)" \
		scripts/check --kunit --vmtest --pair --deb --debug $(if $(CHECK_KVER),--kver $(CHECK_KVER))

check-stock: W ?= 1
check-stock:
	$(CHECK_ENV) TEST_SCOPE=$(TEST_SCOPE) $(if $(TESTS),STOCK_TESTS="$(TESTS)") \
		scripts/check --stock

debug-kernel:
	scripts/debug-kernel

kunit-debug:
	$(if $(SUITES),@echo "kunit-debug: SUITES ignored: all suites run (6.1 cannot filter suites loaded from a module)" >&2)
	scripts/kunit --debug

vmtest-debug:
	scripts/vm --debug --timeout $(VM_TIMEOUT) env TEST_TIMEOUT=$(DEBUG_TEST_TIMEOUT) \
		PAIR_TIMEOUT=$(PAIR_TIMEOUT) LOSS_RATIO=$(DEBUG_LOSS_RATIO) \
		TEST_SCOPE=$(TEST_SCOPE) tests/run $(TESTS)

check-debug: W ?= 1
check-debug:
	$(CHECK_ENV) TEST_SCOPE=$(TEST_SCOPE) \
		$(if $(TESTS),DEBUG_TESTS="$(TESTS)",env -u DEBUG_TESTS) scripts/check --debug

# deps, all, then sroce.ko against $(CHECK_KVER) and tests/run in its VM
# ($(KVER_FULL_TESTS), or TESTS=...; TESTS=all: every test)
check-kver: W ?= 1
check-kver:
	$(CHECK_ENV) TEST_SCOPE=$(TEST_SCOPE) \
		$(if $(filter all,$(TESTS)),env -u KVER_TESTS,KVER_TESTS="$(or $(TESTS),$(KVER_FULL_TESTS))") \
		scripts/check --kver $(CHECK_KVER)

demo:
	scripts/demo

bench:
	scripts/bench

# The stress soak, t-86, for 30 minutes (tests/run alone runs it for 5):
# the VM and the test get what is left after the last step's bound and
# the checks that follow the soak.
SOAK_SECS ?= 1800
soak:
	$(VM_KVER) scripts/vm --timeout $$(($(SOAK_SECS) + 1200)) env SOAK_SECS=$(SOAK_SECS) \
		$(if $(SOAK_SEED),SOAK_SEED=$(SOAK_SEED)) TEST_TIMEOUT=$$(($(SOAK_SECS) + 900)) \
		tests/run t-86-soak.sh

.PHONY: all modules userspace testprogs clean install deb kunit vmtest check demo bench \
	debug-kernel kunit-debug vmtest-debug check-debug check-stock vmtest-pair check-kver \
	check-quick check-full soak

endif
