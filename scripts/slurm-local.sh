#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# slurm-local.sh start DIR | stop DIR - a one-node Slurm on localhost for tests (as root).
#
# start: writes DIR/slurm.conf (this machine's CPUs and memory, one partition, no
# accounting, state and spool under DIR), starts munged on its own socket and key in DIR,
# then slurmctld and slurmd, and waits until the node takes jobs. Prints the line
# `export SLURM_CONF=DIR/slurm.conf` for the client commands (sbatch, squeue). Exit 0 when
# the node is up; 77 with the reason on stderr when Slurm cannot run here (not root,
# packages missing, a daemon that does not start); a test skips on 77.
# stop: stops the daemons started in DIR (by their pid files only) and waits for them.
set -u
cmd=${1:-}
D=${2:-}
[ -n "$cmd" ] && [ -n "$D" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

skip() { echo "slurm-local: $*" >&2; exit 77; }

stop_pid() { # pidfile
	local p
	[ -s "$1" ] || return 0
	p=$(cat "$1")
	[ -n "$p" ] && kill "$p" 2>/dev/null || return 0
	for _ in $(seq 50); do
		kill -0 "$p" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 "$p" 2>/dev/null
}

if [ "$cmd" = stop ]; then
	stop_pid "$D/slurmd.pid"
	stop_pid "$D/slurmctld.pid"
	stop_pid "$D/munged.pid"
	exit 0
fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

[ "$(id -u)" = 0 ] || skip "not root: slurmd must run as root to start jobs as their user"
for b in munged mungekey slurmctld slurmd sbatch sinfo; do
	command -v "$b" >/dev/null || skip "$b is not installed (apt-get install slurm-wlm munge)"
done
mkdir -p "$D/state" "$D/spool" "$D/munge" || skip "cannot make $D"
chmod 700 "$D/munge"

# munge: a key of our own, a socket in DIR, so a host's munged (if any) is left alone
mungekey --create --keyfile="$D/munge/munge.key" --force 2>"$D/mungekey.err" ||
	skip "mungekey failed: $(cat "$D/mungekey.err")"
munged --socket="$D/munge/munge.sock" --key-file="$D/munge/munge.key" \
	--pid-file="$D/munged.pid" --log-file="$D/munged.log" --seed-file="$D/munge/seed" \
	--force 2>"$D/munged.err" ||
	skip "munged does not start: $(cat "$D/munged.err")"

cpus=$(nproc)
mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
# ports of our own (a free pair above 20000), so a host's Slurm is not in the way
port=$((20000 + ($$ % 20000) * 2))
cat >"$D/slurm.conf" <<EOF
ClusterName=mrtest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
NodeName=localhost CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=mrtest Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$D/slurm.conf"
slurmctld -f "$SLURM_CONF" -i 2>"$D/slurmctld.err" ||
	skip "slurmctld does not start: $(tail -3 "$D/slurmctld.err" "$D/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" -N localhost 2>"$D/slurmd.err" ||
	skip "slurmd does not start: $(tail -3 "$D/slurmd.err" "$D/slurmd.log" 2>/dev/null)"
for _ in $(seq 60); do
	state=$(sinfo -h -n localhost -o %t 2>/dev/null)
	case "$state" in
	idle*|mix*|alloc*) echo "export SLURM_CONF=$SLURM_CONF"; exit 0 ;;
	esac
	sleep 0.5
done
"$0" stop "$D"
skip "the node did not become idle in 30 s (state '${state:-none}'): $(tail -3 "$D/slurmd.log" "$D/slurmctld.log" 2>/dev/null)"
