# Sourced by the run_*.sh scripts here: the header of the machine.txt every result folder starts with.
# machine_header [JAVA]: date, cpu and load; given a java executable, also its version and Open MPI's.
machine_header() {
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p') x $(nproc)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ -n "${1:-}" ]; then
    echo "java: $("$1" -version 2>&1 | head -1)"
    echo "open mpi: $(ompi_info --version 2>/dev/null | head -1 || echo none)"
  fi
}
