// SPDX-License-Identifier: GPL-2.0
/*
 * hwsample.c - hardware data-address sampling events: which ones to ask for, how they are
 * encoded, and which of them open on this host. perf.c adds the ones that open to the
 * per-CPU rings beside the software streams (same task / cgroup / system scope, inherited
 * by children) and decode.c turns each sample with a user-space data address into an
 * ACCESS event with source MR_SRC_HWSAMPLE (on_hwsample()).
 *
 * Names (--hw-event NAME[,NAME...]) are libpfm4 event strings ("MEM_INST_RETIRED.ALL_LOADS",
 * "perf::PERF_COUNT_SW_PAGE_FAULTS", with libpfm4 modifiers such as ":precise=2"),
 * encoded with pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT, PFM_PLM3: user space
 * only), or "ibs_op", which libpfm4 cannot encode: its perf type is read from
 * /sys/bus/event_source/devices/ibs_op/type. Without --hw-event the vendor's list is used,
 * the events `perf mem` samples (tools/perf/arch/x86/util/mem-events.c, 6.12):
 *
 *   Intel  MEM_INST_RETIRED.ALL_LOADS, MEM_INST_RETIRED.ALL_STORES with the highest
 *          precise_ip the PMU takes (3, lowered to 1 on EINVAL/EOPNOTSUPP as perf's /P
 *          does): PEBS records carry the data address (PERF_SAMPLE_ADDR) and data_src.
 *          perf mem samples loads with MEM_TRANS_RETIRED.LOAD_LATENCY (ldlat=30) instead,
 *          which only sees loads slower than 30 cycles; ALL_LOADS sees every load.
 *   AMD    ibs_op (perf mem's "ibs_op//"): IBS tags one op every period cycles; the data
 *          address comes with the sample only when the op was a load or store
 *          (arch/x86/events/amd/ibs.c: IbsDcLinAd when dc_lin_addr_valid), so most samples
 *          have none and are counted and dropped. IBS refuses every exclude_* bit
 *          (PERF_PMU_CAP_NO_EXCLUDE), so kernel data addresses arrive too and are dropped;
 *          the period must be a multiple of 16 and is rounded down.
 *
 * Samples are IP|TID|TIME|ADDR|CPU (the fault layout) plus DATA_SRC, whose mem_op says
 * load or store; WEIGHT and PHYS_ADDR are not asked for (the event model has no place for
 * them).
 *
 * What was tested and what was not: the test VMs have no PMU at all (every hardware
 * event, libpfm4-encoded or not, fails with ENOENT; no ibs_op PMU). The whole path —
 * libpfm4 encoding, opening in the rings, reading samples, ACCESS(hwsample) events,
 * counters, loss, metadata — is tested there through a libpfm4-encoded software event,
 * perf::PERF_COUNT_SW_PAGE_FAULTS, whose samples carry the faulting data address
 * (tests/test_record.c:test_hw_sample, tests/test_record.sh), and the fallback of the
 * defaults (ibs_op there) and of a libpfm4-encoded hardware event, perf::CYCLES, which
 * fails with ENOENT (test_hw_fallback). Never run: real PEBS and IBS samples (whether the
 * precise_ip step-down suffices, data_src values, the share without an address, kernel
 * addresses, the overhead of the default period) and the case where the events open
 * alone but not beside the other streams (record.c then records without them).
 */
#define _GNU_SOURCE
/* libperf's tree header first (as perf.c): libpfm4's then skips its own copy. */
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rec_int.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "?";
}

/* What an errno from perf_event_open() means for a hardware sampling event. */
static const char *open_hint(int e)
{
	switch (e) {
	case ENOENT:
		return "no such PMU or event here (no hardware PMU: a VM without a vPMU?)";
	case ENODEV:
		return "this CPU's PMU lacks the event";
	case EOPNOTSUPP:
		return "the PMU cannot sample it with these settings (precise_ip, sample "
		       "fields)";
	case EINVAL:
		return "the kernel rejects the settings (period, precise_ip, exclude bits)";
	case EACCES:
	case EPERM:
		return "not permitted: perf_event_paranoid, or run as root / with CAP_PERFMON";
	case EBUSY:
		return "the PMU is taken (another PEBS / IBS user?)";
	default:
		return "";
	}
}

/* vendor_id of /proc/cpuinfo ("GenuineIntel", "AuthenticAMD"), "" when none. */
static void cpu_vendor(char *buf, size_t cap)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "re");

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "vendor_id : %15s", buf) == 1 ||
		    sscanf(line, "vendor_id\t: %15s", buf) == 1)
			break;
	fclose(f);
	buf[cap - 1] = '\0';
}

/* MR_ACC_WRITE for a name that says stores, MR_ACC_READ for loads, else 0. */
static uint8_t name_rwx(const char *name)
{
	char up[64];
	size_t i;

	for (i = 0; name[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)toupper((unsigned char)name[i]);
	up[i] = '\0';
	if (strstr(up, "STORE"))
		return MR_ACC_WRITE;
	if (strstr(up, "LOAD"))
		return MR_ACC_READ;
	return 0;
}

/* "ibs_op" (or perf's "ibs_op//"): type from sysfs, config 0, no exclude bits. */
/* e->why, which MR_RECORD_HW_WHY is sized for: an errno name, its strerror() text and a
 * hint of open_hint(), or libpfm4's error with a line of ours; never cut in silence. */
static void set_why(struct rec_hw_event *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_why(struct rec_hw_event *e, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
	MR_WARN_ON_ONCE(n < 0 || (size_t)n >= sizeof(e->why));
}

static int encode_ibs(struct rec_hw_event *e, uint64_t period)
{
	char path[128];
	unsigned int type;
	FILE *f;

	snprintf(path, sizeof(path), SYSFS_PMUS "/ibs_op/type");
	f = fopen(path, "re");
	if (!f || fscanf(f, "%u", &type) != 1) {
		e->err = f ? EIO : errno;
		set_why(e, "%s (%s): no ibs_op PMU in " SYSFS_PMUS
			 ": this CPU or VM has no IBS", errname(e->err), strerror(e->err));
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	e->type = type;
	e->period = period & ~0xfull ? period & ~0xfull : 0x10;
	snprintf(e->how, sizeof(e->how), "sysfs PMU ibs_op (type %u), config 0%s", type,
		 e->period != period ? ", period rounded down to a multiple of 16" : "");
	return 0;
}

/* A libpfm4 event string, user space only unless its modifiers say otherwise. */
static int encode_pfm(struct rec_hw_event *e, uint64_t period, int given_period)
{
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int rc;

	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &a;
	arg.size = sizeof(arg);
	arg.fstr = &fstr;
	rc = pfm_get_os_event_encoding(e->name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc != PFM_SUCCESS) {
		if (rc == PFM_ERR_NOTFOUND)
			set_why(e, "libpfm4 knows no such event for "
				 "this CPU's PMU (%s)", pfm_strerror(rc));
		else
			set_why(e, "libpfm4 cannot encode it: %s",
				 pfm_strerror(rc));
		free(fstr);
		return -1;
	}
	e->type = a.type;
	e->config = a.config;
	e->config1 = a.config1;
	e->config2 = a.config2;
	e->precise_ip = (uint8_t)a.precise_ip;
	e->exclude_user = (uint8_t)a.exclude_user;
	e->exclude_kernel = (uint8_t)a.exclude_kernel;
	e->exclude_hv = (uint8_t)a.exclude_hv;
	e->exclude_host = (uint8_t)a.exclude_host;
	e->exclude_guest = (uint8_t)a.exclude_guest;
	/* a ":period=N" modifier stands unless --hw-period was given */
	e->period = !given_period && !a.freq && a.sample_period ? a.sample_period : period;
	snprintf(e->how, sizeof(e->how), "libpfm4 %s (type %u config %#llx)",
		 fstr ? fstr : e->name, a.type, (unsigned long long)a.config);
	free(fstr);
	return 0;
}

void rec_hw_attr(const struct rec_hw_event *e, struct perf_event_attr *a)
{
	a->type = e->type;
	a->config = e->config;
	a->config1 = e->config1;
	a->config2 = e->config2;
	a->precise_ip = e->precise_ip;
	a->exclude_user = e->exclude_user;
	a->exclude_kernel = e->exclude_kernel;
	a->exclude_hv = e->exclude_hv;
	a->exclude_host = e->exclude_host;
	a->exclude_guest = e->exclude_guest;
	a->freq = 0;
	a->sample_period = e->period;
}

/*
 * Open e alone on the calling thread (pid 0, any CPU, disabled, not inherited) with the
 * recorder's layout, and close it. precise_ip goes down to 1 while the kernel says EINVAL
 * or EOPNOTSUPP (perf's /P does the same); 0 would lose the PEBS data address.
 */
static int try_open(struct rec_hw_event *e, const struct perf_event_attr *base)
{
	struct perf_event_attr a = *base;
	int fd;

	a.inherit = 0;
	a.enable_on_exec = 0;
	a.disabled = 1;
	rec_hw_attr(e, &a);
	for (;;) {
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			e->precise_ip = (uint8_t)a.precise_ip;
			return 0;
		}
		e->err = errno;
		if ((e->err == EINVAL || e->err == EOPNOTSUPP) && a.precise_ip > 1) {
			a.precise_ip--;
			continue;
		}
		set_why(e, "%s (%s)%s%s", errname(e->err),
			 strerror(e->err), open_hint(e->err)[0] ? ": " : "",
			 open_hint(e->err));
		return -1;
	}
}

int rec_hw_setup(struct rec_hw *hw, const char *names, uint64_t period,
		 const struct perf_event_attr *base, char *why, size_t cap)
{
	char list[REC_HW_MAX * 64 + 64], *tok, *save = NULL;
	int given = period != 0, want_precise = 0, pfm_ok;

	memset(hw, 0, sizeof(*hw));
	why[0] = '\0';
	if (!period)
		period = REC_HW_DEFAULT_PERIOD;
	cpu_vendor(hw->vendor, sizeof(hw->vendor));
	if (!names || !names[0]) {
		hw->defaults = 1;
		if (!strcmp(hw->vendor, "GenuineIntel")) {
			names = "MEM_INST_RETIRED.ALL_LOADS,MEM_INST_RETIRED.ALL_STORES";
			want_precise = 3;
		} else if (!strcmp(hw->vendor, "AuthenticAMD")) {
			names = "ibs_op";
		} else {
			snprintf(why, cap, "no default hardware data-address event for CPU "
				 "vendor '%s'; name one with --hw-event", hw->vendor);
			return 0;
		}
	}
	if (strlen(names) >= sizeof(list)) {
		snprintf(why, cap, "--hw-event: list longer than %zu bytes", sizeof(list) - 1);
		return MR_EINVAL;
	}
	snprintf(list, sizeof(list), "%s", names);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		if (!*tok)
			continue;
		if (hw->n == REC_HW_MAX) {
			snprintf(why, cap, "--hw-event: more than %d events", REC_HW_MAX);
			return MR_EINVAL;
		}
		if (strlen(tok) >= sizeof(hw->ev[0].name)) {
			snprintf(why, cap, "--hw-event: name '%.40s...' longer than %zu bytes",
				 tok, sizeof(hw->ev[0].name) - 1);
			return MR_EINVAL;
		}
		snprintf(hw->ev[hw->n++].name, sizeof(hw->ev[0].name), "%s", tok);
	}
	if (!hw->n) {
		snprintf(why, cap, "--hw-event: no event named");
		return MR_EINVAL;
	}

	pfm_ok = pfm_initialize();
	for (int i = 0; i < hw->n; i++) {
		struct rec_hw_event *e = &hw->ev[i];
		int rc;

		e->rwx = name_rwx(e->name);
		if (!strcmp(e->name, "ibs_op") || !strcmp(e->name, "ibs_op//")) {
			rc = encode_ibs(e, period);
		} else if (pfm_ok != PFM_SUCCESS) {
			set_why(e, "libpfm4 pfm_initialize failed (%s)",
				 pfm_strerror(pfm_ok));
			rc = -1;
		} else {
			rc = encode_pfm(e, period, given);
			if (rc == 0 && want_precise && !e->precise_ip)
				e->precise_ip = (uint8_t)want_precise;
		}
		if (rc == 0 && try_open(e, base) == 0) {
			e->opened = 1;
			hw->nopen++;
		}
	}
	return hw->nopen;
}

void rec_hw_describe(const struct rec_hw *hw, char *buf, size_t cap)
{
	size_t n = 0;
	int k = 0;

	/* cap is MR_RECORD_WHY_MAX, sized for every event's name and reason: a cut text
	 * here is a sizing bug */
#define PUT(...) do { if (n < cap) n += (size_t)snprintf(buf + n, cap - n, __VA_ARGS__); \
		      MR_WARN_ON_ONCE(n >= cap); } while (0)
	buf[0] = '\0';
	if (hw->nopen) {
		for (int i = 0; i < hw->n; i++)
			if (hw->ev[i].opened)
				PUT("%s%s every %llu", k++ ? ", " : "", hw->ev[i].name,
				    (unsigned long long)hw->ev[i].period);
		k = 0;
		for (int i = 0; i < hw->n; i++)
			if (!hw->ev[i].opened)
				PUT("%s%s: %s", k++ ? "; " : "; not opened: ", hw->ev[i].name,
				    hw->ev[i].why);
		return;
	}
	if (!hw->n)
		return;
	PUT("hardware event %s: %s", hw->ev[0].name, hw->ev[0].why);
	for (int i = 1; i < hw->n; i++)
		PUT("; %s: %s", hw->ev[i].name, hw->ev[i].why);
	PUT("; the software sources continue (page faults, young-bit scans)");
#undef PUT
}

uint8_t rec_hw_rwx(const struct rec_hw_event *e, uint64_t data_src)
{
	uint64_t op = (data_src >> PERF_MEM_OP_SHIFT) & 0x1f;

	if (op & PERF_MEM_OP_STORE)
		return MR_ACC_WRITE;
	if (op & PERF_MEM_OP_LOAD)
		return MR_ACC_READ;
	if (op & PERF_MEM_OP_EXEC)
		return MR_ACC_EXEC;
	return e->rwx ? e->rwx : MR_ACC_READ;
}
