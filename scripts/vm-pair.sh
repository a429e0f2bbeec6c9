#!/usr/bin/env bash
# scripts/vm-pair.sh 'command on host A' 'command on host B'
#
# Two soft-RoCE "hosts" that really are two machines: two QEMU guests (TCG), each with its own kernel, one
# virtio NIC and its own rxe device, joined by a QEMU socket link on 127.0.0.1 (guest A listens, guest B
# connects: an Ethernet wire between the two NICs; nothing else is reachable from either guest).
#   host A: hostname vmhost-a, NIC address 10.78.0.1/24, rxe0 on that NIC, GID index 1 = ::ffff:10.78.0.1 (RoCE v2)
#   host B: hostname vmhost-b, NIC address 10.78.0.2/24, rxe0 on that NIC, GID index 1 = ::ffff:10.78.0.2
# Reuses the kernel and initramfs that backend-rdma/src/test/vm/run-in-vm.sh builds under /tmp/rdmavm (built
# here first by running that script once if missing) and its guest /init protocol: a 9p share tagged `ctl`
# holding cmd.sh, cwd, env and shares, the exit status coming back as ctl/rc, stdout/stderr on the virtio
# serial ports `out` and `err`. The init's own devices (veth/dummy rxe) are removed before the command runs.
#
# In both guests: the current directory (rw) and the JDK (ro) at the same paths, JAVA_HOME/PATH set, and
#   PAIR_ME (a|b), PAIR_ADDR (own address), PAIR_PEER (the other's), PAIR_ADDR_A, PAIR_ADDR_B, PAIR_NIC;
#   pair_signal NAME / pair_wait NAME [SECONDS] rendezvous the two commands through a host folder shared by both.
# Output: each guest's stdout/stderr prefixed [A]/[B] as it comes. Exit status: 0 when both commands exited 0,
# else the first non-zero (A's first); 124 = timeout, 125 = a guest ended without a status.
#
# Env: VMPAIR_TIMEOUT (s, default 900) bounds the whole run; both guests are killed at the end in any case.
#      VMPAIR_MEM (MiB per guest, default 2048), VMPAIR_CPUS (vCPUs per guest, default 2),
#      VMPAIR_PASSENV (names of host variables to export in both), VMPAIR_SHARES ("dir1:ro dir2" as RDMAVM_SHARES),
#      VMPAIR_IMG (a folder with vmlinux + initrd.cpio; default the repository VM script's image), VMPAIR_KEEP=1.
# Host packages: qemu-system-x86 mmdebstrap kmod cpio python3 (as run-in-vm.sh).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 2 ] || { echo "usage: $0 'command on host A' 'command on host B'" >&2; exit 2; }
VMSCRIPT=$ROOT/backend-rdma/src/test/vm/run-in-vm.sh
IMG=${VMPAIR_IMG:-/tmp/rdmavm/img-$(sha256sum "$VMSCRIPT" | cut -c1-16)}
if [ ! -s "$IMG/vmlinux" ] || [ ! -s "$IMG/initrd.cpio" ]; then
  [ -z "${VMPAIR_IMG:-}" ] || { echo "vm-pair: no vmlinux/initrd.cpio in $IMG" >&2; exit 125; }
  echo "vm-pair: building the VM image with $VMSCRIPT (one boot)" >&2
  RDMAVM_TIMEOUT=300 "$VMSCRIPT" true || { echo "vm-pair: the image build failed" >&2; exit 125; }
fi
TIMEOUT=${VMPAIR_TIMEOUT:-900}
MEM=${VMPAIR_MEM:-2048}
CPUS=${VMPAIR_CPUS:-2}
JDK=${RDMAVM_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
KCMD="console=ttyS0 quiet loglevel=1 panic=-1 rdinit=/init mitigations=off cryptomgr.notests"
ADDR_A=10.78.0.1 ADDR_B=10.78.0.2

mkdir -p /tmp/rdmavm/pairs
RUN=$(mktemp -d /tmp/rdmavm/pairs/pair.XXXXXX)
mkdir -p "$RUN/a" "$RUN/b" "$RUN/sync"
TAILS=""
cleanup() {
  local g p
  for g in a b; do                       # only the guests this script started
    p=$(cat "$RUN/$g/qemu.pid" 2>/dev/null) || continue
    if kill -0 "$p" 2>/dev/null; then kill "$p" 2>/dev/null; sleep 1; kill -9 "$p" 2>/dev/null; fi
  done
  for p in $TAILS; do kill "$p" 2>/dev/null; done
  [ "${VMPAIR_KEEP:-0}" = 1 ] && echo "vm-pair: kept $RUN" >&2 || rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# A free TCP port on 127.0.0.1 for the wire (guest A's QEMU listens on it).
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# What runs first in each guest: the NIC, its rxe device, the hostname, the rendezvous helpers.
prologue() { # <a|b> <own address> <peer address> <mac>
cat <<EOF
export PAIR_ME=$1 PAIR_ADDR=$2 PAIR_PEER=$3 PAIR_ADDR_A=$ADDR_A PAIR_ADDR_B=$ADDR_B
pair_signal() { : > "/pair/\$1.\$PAIR_ME"; }
pair_wait() { # <name> [seconds]: until the other guest signalled name
  local other=b n=\$(( \${2:-120} * 5 )); [ "\$PAIR_ME" = b ] && other=a
  while [ ! -e "/pair/\$1.\$other" ]; do n=\$((n - 1)); [ \$n -gt 0 ] || { echo "vm-pair: no '\$1' from host \$other" >&2; return 1; }; sleep 0.2; done
}
mkdir -p /pair && mount -t 9p -o trans=virtio,version=9p2000.L pair /pair || { echo "vm-pair: no sync share" >&2; exit 125; }
for d in /sys/class/infiniband/*; do [ -e "\$d" ] && rdma link delete "\${d##*/}"; done
ip link delete veth0 2>/dev/null; ip link delete dummy0 2>/dev/null
modprobe virtio_net || { echo "vm-pair: no virtio_net" >&2; exit 125; }
PAIR_NIC=\$(cd /sys/class/net && for n in *; do [ "\$(cat \$n/address)" = "$4" ] && echo \$n; done)
[ -n "\$PAIR_NIC" ] || { echo "vm-pair: no NIC with MAC $4" >&2; exit 125; }
export PAIR_NIC
echo vmhost-$1 > /proc/sys/kernel/hostname
ip link set "\$PAIR_NIC" up && ip addr add $2/24 dev "\$PAIR_NIC" && rdma link add rxe0 type rxe netdev "\$PAIR_NIC" \
  || { echo "vm-pair: NIC/rxe setup failed" >&2; exit 125; }
pair_signal up && pair_wait up 300 || exit 125
EOF
}

SHARES=("rw $(pwd -P)" "ro $(readlink -f "$JDK")")
for s in ${VMPAIR_SHARES:-}; do
  case "$s" in *:ro) SHARES+=("ro $(readlink -f "${s%:ro}")");; *:rw) SHARES+=("rw $(readlink -f "${s%:rw}")");; *) SHARES+=("rw $(readlink -f "$s")");; esac
done

start_guest() { # <a|b> <own> <peer> <mac> <netdev options> <command>
  local g=$1 G=$RUN/$1 n=0 mode p args=()
  { prologue "$1" "$2" "$3" "$4"; printf '%s\n' "$6"; } > "$G/cmd.sh"
  pwd -P > "$G/cwd"
  {
    printf 'export JAVA_HOME=%q\n' "$JDK"
    printf 'export PATH=%q:$PATH\n' "$JDK/bin"
    for v in ${VMPAIR_PASSENV:-}; do [ -n "${!v+x}" ] && printf 'export %s=%q\n' "$v" "${!v}"; done
  } > "$G/env"
  : > "$G/shares"
  while read -r mode p; do               # sorted by path: parents mount first
    [ -d "$p" ] || { echo "vm-pair: not a directory, not shared: $p" >&2; continue; }
    local ro=""; [ "$mode" = ro ] && ro=",readonly=on"
    args+=(-fsdev "local,id=fs$n,path=$p,security_model=none,multidevs=remap$ro" -device "virtio-9p-pci,fsdev=fs$n,mount_tag=s$n")
    printf 's%d %s %s\n' "$n" "$mode" "$p" >> "$G/shares"; n=$((n + 1))
  done < <(printf '%s\n' "${SHARES[@]}" | sort -u -t' ' -k2)
  : > "$G/out.log"; : > "$G/err.log"
  timeout -k 5 "$TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -machine q35 -m "$MEM" -smp "$CPUS" \
    -bios /usr/share/qemu/qboot.rom -pidfile "$G/qemu.pid" -display none -monitor none -nodefaults -no-reboot -no-user-config \
    -kernel "$IMG/vmlinux" -initrd "$IMG/initrd.cpio" -append "$KCMD" -serial "file:$G/console.log" \
    -netdev "socket,id=wire,$5" -device "virtio-net-pci,netdev=wire,mac=$4" \
    -device virtio-serial-pci \
    -chardev "file,id=out,path=$G/out.log,append=on" -device virtserialport,chardev=out,name=out \
    -chardev "file,id=err,path=$G/err.log,append=on" -device virtserialport,chardev=err,name=err \
    -fsdev "local,id=ctl,path=$G,security_model=none" -device virtio-9p-pci,fsdev=ctl,mount_tag=ctl \
    -fsdev "local,id=pair,path=$RUN/sync,security_model=none" -device virtio-9p-pci,fsdev=pair,mount_tag=pair \
    "${args[@]}" </dev/null > "$G/qemu.log" 2>&1 &
  echo $! > "$G/wait.pid"
  local tag=${g^^}
  tail -n +1 -F "$G/out.log" 2>/dev/null > >(sed -u "s/^/[$tag] /") & TAILS="$TAILS $!"
  tail -n +1 -F "$G/err.log" 2>/dev/null > >(sed -u "s/^/[$tag] /" >&2) & TAILS="$TAILS $!"
}

start=$(date +%s)
start_guest a $ADDR_A $ADDR_B 52:54:00:4e:00:01 "listen=127.0.0.1:$PORT" "$1"
for _ in $(seq 100); do                  # B connects once A's QEMU listens
  ss -Hltn "sport = :$PORT" | grep -q . && break; sleep 0.1
done
start_guest b $ADDR_B $ADDR_A 52:54:00:4e:00:02 "connect=127.0.0.1:$PORT" "$2"
wait "$(cat "$RUN/a/wait.pid")"; QA=$?
wait "$(cat "$RUN/b/wait.pid")"; QB=$?
sleep 0.5                                # let the tails print the last lines

RC=0
for g in a b; do
  q=$QA; [ $g = b ] && q=$QB
  if [ -s "$RUN/$g/rc" ]; then r=$(cat "$RUN/$g/rc")
  elif [ "$q" = 124 ] || [ "$q" = 137 ]; then echo "vm-pair: TIMEOUT: guest ${g^^} killed after ${TIMEOUT}s" >&2; r=124
  else echo "vm-pair: guest ${g^^} ended without an exit status (qemu rc=$q): $(tail -n 3 "$RUN/$g/qemu.log" "$RUN/$g/console.log" 2>/dev/null | tr '\n' ' ')" >&2; r=125
  fi
  [ -s "$RUN/$g/setup.log" ] && sed "s/^/[${g^^} setup] /" "$RUN/$g/setup.log" >&2
  echo "vm-pair: host ${g^^} exit $r"
  [ "$RC" = 0 ] && RC=$r
done
echo "vm-pair: done after $(( $(date +%s) - start )) s (wire 127.0.0.1:$PORT; load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
exit "$RC"
